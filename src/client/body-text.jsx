/**
 * A peer message's body as plain text (never Markdown or HTML): the first
 * {@link PREVIEW_CHARS} characters, and when it is longer a visible cut
 * ("… N more characters") with the rest one click away.
 * @module dsh-cross-session/client/body-text
 */
import { useState } from 'react'

/** Characters (code points) shown before the cut. */
export const PREVIEW_CHARS = 600

/** The preview of `text`: `{ shown, hidden }` (hidden = characters after the cut). */
export function preview(text, limit = PREVIEW_CHARS) {
  const chars = Array.from(text)
  return chars.length <= limit ? { shown: text, hidden: 0 } : { shown: chars.slice(0, limit).join(''), hidden: chars.length - limit }
}

/** The body, cut visibly when long. */
export function BodyText({ text, t }) {
  const [open, setOpen] = useState(false)
  const { shown, hidden } = preview(text)
  return (
    <div className="xs-message" data-xs-message-body={hidden > 0 && !open ? 'cut' : 'full'}>
      <pre>{open ? text : shown}{hidden > 0 && !open ? '…' : ''}</pre>
      {hidden > 0
        ? (
            <button type="button" className="xs-more" data-xs-more="true" onClick={() => setOpen(!open)}>
              {open ? t('body.less') : t('body.more', { count: hidden })}
            </button>
          )
        : null}
    </div>
  )
}
