/**
 * Backend failures reach the model only as rows of one closed
 * table; the raw error goes to the log.
 */
import { describe, expect, it } from 'vitest'
import { callBackend, callToCompletion, classifyFailure, CONTROLLER_CODES, failureText, FILE_SYSTEM_CODES, MACHINE_CODES, SESSION_QUERY_CODES } from '../../src/testing.js'

describe('classifyFailure', () => {
  it.each([...CONTROLLER_CODES, ...SESSION_QUERY_CODES, ...FILE_SYSTEM_CODES, ...MACHINE_CODES, ...MACHINE_CODES])('%s is a kind of its own, and its text starts with the code', code => {
    const kind = classifyFailure(Object.assign(new Error('/home/user/.dsh/secret path'), { code }))
    expect(kind).toBe(code)
    expect(failureText(kind).startsWith(`${code}: `)).toBe(true)
    expect(failureText(kind)).not.toContain('secret')
  })

  it('sorts aborts, timeouts and everything else by name, never by message', () => {
    expect(classifyFailure(new DOMException('x', 'AbortError'))).toBe('aborted')
    expect(classifyFailure(new DOMException('x', 'TimeoutError'))).toBe('timeout')
    expect(classifyFailure(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }))).toBe('timeout')
    expect(classifyFailure(new Error('ENOENT: no such file, open /etc/x'))).toBe('unknown')
    expect(classifyFailure(Object.assign(new Error('x'), { code: 'toString' }))).toBe('unknown')
    expect(classifyFailure('a string')).toBe('unknown')
    expect(classifyFailure(null)).toBe('unknown')
    const hostile = { get code(): never { throw new Error('boom') } }
    expect(classifyFailure(hostile)).toBe('unknown')
  })

  it('every text is one line', () => {
    for (const kind of [...CONTROLLER_CODES, ...SESSION_QUERY_CODES, ...FILE_SYSTEM_CODES, ...MACHINE_CODES, 'aborted', 'timeout', 'unknown'] as const) {
      expect(failureText(kind)).not.toContain('\n')
    }
  })
})

describe('the service boundary', () => {
  const never = new AbortController().signal
  it.each([['callBackend', callBackend], ['callToCompletion', callToCompletion]] as const)('%s hands back the kind and logs the raw error', async (_name, call) => {
    const logs: string[] = []
    const result = await call('reading', never, async () => {
      throw Object.assign(new Error('open /home/user/.dsh/mailbox/x.msg'), { code: 'EACCES' })
    }, line => logs.push(line))
    expect(result).toEqual({ ok: false, cancelled: false, step: 'reading', failure: 'EACCES' })
    expect(logs.join('\n')).toContain('/home/user/.dsh/mailbox/x.msg')
  })
})
