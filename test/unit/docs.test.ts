/**
 * docs/tools.md shows outputs produced by the code; this test fails when the
 * two drift apart (the examples come from test/support/doc-examples.ts,
 * which runs the tools for each). README.md and docs/tools.md print the
 * settings table from the exported schemastery `Config` (docs/tools.md
 * "Settings").
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { settingsTableMarkdown } from '../../src/testing.js'
import { docExamples } from '../support/doc-examples.js'

const page = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8')

describe('docs/tools.md examples', async () => {
  const examples = await docExamples()
  if (process.env.XS_PRINT_DOC_EXAMPLES === '1') for (const [name, text] of Object.entries(examples)) console.log(`## ${name}\n${text}\n`)
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
  it('has one row per documented setting, in the documented order', () => {
    // docs/tools.md "Settings", written out (not SETTING_KEYS, which the table is printed from).
    expect(table.split('\n').slice(2).map(line => line.split('`')[1])).toEqual([
      'enabled', 'defaultSendMode', 'allowResume', 'frameMessages', 'includeInjectedByDefault', 'maxListResults', 'maxReadMessages',
      'maxMessageChars', 'maxSendChars', 'visibility', 'maxSendsPerMinute', 'maxHops', 'recordWaitMs', 'answerWaitMs',
      'notifyByDefault', 'noticeTtlMs', 'noticeWakesEndedRun', 'inbound', 'holdExpiryMs', 'store', 'machine',
    ])
  })
})
