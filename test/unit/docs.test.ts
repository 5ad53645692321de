/**
 * docs/tools.md shows outputs produced by the code; this test fails when the
 * two drift apart (the examples come from test/support/doc-examples.ts).
 * README.md and docs/tools.md print the settings table from the exported
 * schemastery `Config` (issue 9).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SETTING_KEYS, settingsTableMarkdown } from '../../src/testing.js'
import { docExamples } from '../support/doc-examples.js'

const page = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8')

describe('docs/tools.md examples', async () => {
  const examples = await docExamples()
  it.each(Object.entries(examples))('shows the code\'s real %s output', (_name, text) => {
    expect(page).toContain(`\`\`\`text\n${text}\n\`\`\``)
  })
})

describe('settings table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const table = settingsTableMarkdown()
  it.each([['README.md', readme], ['docs/tools.md', page]])('%s prints the table from the exported Config', (_file, text) => {
    expect(text).toContain(`\n${table}\n`)
  })
  it('has one row per setting, in the order resolveSettings uses', () => {
    expect(table.split('\n').slice(2).map(line => line.split('`')[1])).toEqual(SETTING_KEYS)
  })
})
