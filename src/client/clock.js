/**
 * Times as the rows show them: `14:05` today, `Dec 1 14:05` on another day
 * (the browser's own time zone and language).
 * @module dsh-cross-session/client/clock
 */

const pad = n => String(n).padStart(2, '0')

/** `HH:MM` (with `:SS` when `seconds`), and the day first when `at` is not today (`now`'s day). */
export function clock(at, { seconds = false, now = Date.now() } = {}) {
  const date = new Date(at)
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}${seconds ? `:${pad(date.getSeconds())}` : ''}`
  if (date.toDateString() === new Date(now).toDateString()) return time
  return `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`
}

/** How long until `at`, in the dictionary's words: `9 min` / `9 分钟` from two minutes on, else `40 s` / `40 秒`. */
export function timeLeftText(at, t, now = Date.now()) {
  const ms = Math.max(0, at - now)
  return ms >= 120_000 ? t('time.min', { n: Math.round(ms / 60_000) }) : t('time.s', { n: Math.round(ms / 1000) })
}
