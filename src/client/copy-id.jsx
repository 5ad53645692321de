/**
 * A session id as a chip: short (`4b91…`), the full id on hover, and copied
 * whole with one click (the Clipboard API, else a selected text field and
 * the `copy` command); the chip says "copied" for a moment.
 * @module dsh-cross-session/client/copy-id
 */
import { useEffect, useState } from 'react'
import { shortId } from '../core/text.ts'

/** How long the chip says it copied, ms. */
const COPIED_MS = 1500

async function copyText(text) {
  try {
    await globalThis.navigator.clipboard.writeText(text)
    return true
  } catch {
    const field = document.createElement('textarea')
    field.value = text
    field.setAttribute('readonly', '')
    field.style.position = 'fixed'
    field.style.opacity = '0'
    document.body.appendChild(field)
    field.select()
    const done = document.execCommand('copy')
    field.remove()
    return done
  }
}

export function CopyId({ id, t }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return undefined
    const timer = setTimeout(() => setCopied(false), COPIED_MS)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <button type="button" className="xs-chip xs-mono xs-copy" title={`${id} · ${t('id.copy')}`} data-xs-copy-id={id}
      onClick={async event => { event.preventDefault(); event.stopPropagation(); setCopied(await copyText(id)) }}>
      {copied ? t('id.copied') : shortId(id)}
    </button>
  )
}
