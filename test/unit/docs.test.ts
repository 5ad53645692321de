/**
 * docs/tools.md shows outputs produced by the code; this test fails when the
 * two drift apart (the examples come from test/support/doc-examples.ts).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { docExamples } from '../support/doc-examples.js'

const page = readFileSync(new URL('../../docs/tools.md', import.meta.url), 'utf8')

describe('docs/tools.md examples', async () => {
  const examples = await docExamples()
  it.each(Object.entries(examples))('shows the code\'s real %s output', (_name, text) => {
    expect(page).toContain(`\`\`\`text\n${text}\n\`\`\``)
  })
})
