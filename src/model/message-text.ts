/**
 * Reading one message's text and source defensively: its text blocks, its
 * provenance label, and whether it is harness-injected context.
 *
 * Rules: docs/tools.md#sessions_read ("Only text", "Provenance", "Injected
 * context": the prefixes below). Shapes: `@deepseek-ai/dsh-llm@0.1.0-rc.8`
 * lib/types/message.d.ts (content blocks; `MessageSourceMap`: sources
 * `user`, `plugin`, `model`, `tool`). Pure; never throws on malformed input.
 *
 * @module dsh-cross-session/model/message-text
 */

import { clipLine, oneLine } from '../core/text.js'

/**
 * Content prefixes that mark harness-injected user-role text
 * (docs/tools.md#sessions_read, "Injected context").
 */
export const INJECTED_PREFIXES = [
  '<system-reminder>',
  '[MNEMON]',
  'MNEMON RUNTIME MEMORY SNAPSHOT',
  'Current runtime context.',
] as const

/** Whether user-role text is harness-injected context (by prefix). */
export function isInjectedText(text: string): boolean {
  const start = text.trimStart()
  return INJECTED_PREFIXES.some(prefix => start.startsWith(prefix))
}

/** Provenance label of a message source (docs/tools.md#sessions_read: `user`, `model:p/m`, `plugin:name/form`). */
export function sourceLabel(source: unknown): string {
  if (typeof source !== 'object' || source === null) return 'unknown'
  const value = source as Record<string, unknown>
  switch (value.kind) {
    case 'user':
      return 'user'
    case 'model':
      return `model:${labelPart(value.provider)}/${labelPart(value.model)}`
    case 'plugin':
      return typeof value.form === 'string'
        ? `plugin:${labelPart(value.plugin)}/${labelPart(value.form)}` : `plugin:${labelPart(value.plugin)}`
    case 'tool':
      return `tool:${labelPart(value.callId)}`
    default:
      return typeof value.kind === 'string' ? `other:${labelPart(value.kind)}` : 'unknown'
  }
}

export function labelPart(value: unknown, maxChars = 40): string {
  if (typeof value !== 'string' || value.length === 0) return '?'
  // Labels sit inside a one-line row header: keep them short and single-line.
  return clipLine(oneLine(value).replace(/[(),]/g, '_'), maxChars)
}

/** Whether a message source is a plugin's (rc.8 `MessageSourceMap['plugin']`). */
export function isPluginSource(source: unknown): boolean {
  return typeof source === 'object' && source !== null && (source as { kind?: unknown }).kind === 'plugin'
}

/** Joined text of the `text` blocks of a content array, or `undefined` if malformed. */
export function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const parts: string[] = []
  for (const block of content) {
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text
      if (typeof text === 'string') parts.push(text)
    }
  }
  return parts.join('\n')
}

/**
 * The first text block with non-whitespace content, or `undefined` when the
 * joined text would be blank. Equivalent to `textOf(content).trim()` being
 * non-empty, and its `trimStart()` starts inside this block (blocks are
 * joined with `\n`, itself whitespace), without joining anything.
 */
export function firstNonBlank(content: unknown): string | undefined {
  if (typeof content === 'string') return /\S/.test(content) ? content : undefined
  if (!Array.isArray(content)) return undefined
  for (const block of content) {
    if (typeof block !== 'object' || block === null || (block as { type?: unknown }).type !== 'text') continue
    const text = (block as { text?: unknown }).text
    if (typeof text === 'string' && /\S/.test(text)) return text
  }
  return undefined
}
