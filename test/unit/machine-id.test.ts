/**
 * This home as a machine (`home/pg/machine-id.ts`): one stable id per
 * `DSH_HOME`, the same for processes starting at once, a file that holds
 * something else never replaced; the name other machines see.
 *
 * @module test/unit/machine-id
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { machineId, machineName } from '../../src/home/pg/machine-id.js'
import { MAX_MACHINE_NAME } from '../../src/settings/machine-name.js'

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})
function home(): string {
  const made = mkdtempSync(join(tmpdir(), 'xs-machine-'))
  homes.push(made)
  return made
}

describe('the machine id', () => {
  it('is made once, owner-only, and read back the same by every later process', () => {
    const at = home()
    const id = machineId(at)
    expect(id).toMatch(/^m-[A-Za-z0-9_-]{21}$/)
    expect(machineId(at)).toBe(id)
    const file = join(at, 'cross-session', 'machine-id')
    expect(readFileSync(file, 'utf8')).toBe(`${id}\n`)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    // No draft is left behind.
    expect(readdirSync(join(at, 'cross-session'))).toEqual(['machine-id'])
  })

  it('processes starting at once agree on one id', async () => {
    const at = home()
    const script = `import { machineId } from ${JSON.stringify(new URL('../../src/home/pg/machine-id.ts', import.meta.url).href)}\n`
      + `process.stdout.write(machineId(${JSON.stringify(at)}))`
    const ids = await Promise.all(Array.from({ length: 6 }, () => new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      child.stdout.on('data', chunk => out += String(chunk))
      child.on('exit', code => code === 0 ? resolve(out) : reject(new Error(`exit ${code}`)))
    })))
    expect(new Set(ids).size).toBe(1)
    expect(machineId(at)).toBe(ids[0])
  }, 60_000)

  it('is never read through a symlink', () => {
    const at = home()
    mkdirSync(join(at, 'cross-session'), { recursive: true, mode: 0o700 })
    writeFileSync(join(at, 'elsewhere'), 'm-AAAAAAAAAAAAAAAAAAAAA\n')
    symlinkSync(join(at, 'elsewhere'), join(at, 'cross-session', 'machine-id'))
    expect(() => machineId(at)).toThrow(/ELOOP/)
  })

  it('a file that holds something else is never replaced', () => {
    const at = home()
    mkdirSync(join(at, 'cross-session'), { recursive: true, mode: 0o700 })
    writeFileSync(join(at, 'cross-session', 'machine-id'), 'not an id\n')
    expect(() => machineId(at)).toThrow('does not hold a machine id')
    expect(readFileSync(join(at, 'cross-session', 'machine-id'), 'utf8')).toBe('not an id\n')
  })
})

describe('the machine name', () => {
  it('is the setting, trimmed, when the setting\'s rule takes it; else the host name fitted to the rule', () => {
    expect(machineName('  laptop ', 'host-1')).toBe('laptop')
    expect(machineName('', 'host-1')).toBe('host-1')
    // One rule (src/settings/machine-name.ts): a setting it refuses is not cleaned into another name.
    expect(machineName('\u0007\u0000', 'host-1')).toBe('host-1')
    expect(machineName('a\nb', 'h')).toBe('h')
    expect(machineName('é'.repeat(MAX_MACHINE_NAME + 1), 'h')).toBe('h')
    expect(machineName('é'.repeat(MAX_MACHINE_NAME), 'h')).toBe('é'.repeat(MAX_MACHINE_NAME))
    // The host name is not the user's to fix: it is fitted instead.
    expect(machineName('', 'a\nb')).toBe('ab')
    expect([...machineName('', 'é'.repeat(100))]).toHaveLength(MAX_MACHINE_NAME)
    expect(machineName('', '')).toBe('unnamed')
  })
})
