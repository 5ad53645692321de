/**
 * The settings card's warning for a home the sandbox can write: when the
 * host reports (channel `home.get`, src/home/channel.ts) that `DSH_HOME`
 * lies inside a root rc.8's sandbox grants a session's shell for writing
 * (a temp root, or the workspace of a session), say what that means and how
 * to move the home. Nothing is shown
 * otherwise (a hidden `data-xs-home-checked` mark once the host answered),
 * or while the host has not answered.
 * docs/tools.md, "Who can decide a held message".
 * @module dsh-cross-session/client/home-warning
 */
import { useEffect, useState } from 'react'
import { callChannel } from './channel.js'

/** The warning (props: the client `ctx` and the slot's `t`), or nothing. */
export function HomeWarning({ ctx, t }) {
  const [home, setHome] = useState(undefined)
  useEffect(() => {
    let live = true
    callChannel(ctx, 'home.get').then(value => { if (live) setHome(value) }, () => undefined)
    return () => { live = false }
  }, [ctx])
  if (home === undefined) return null
  // The host answered with no root: a hidden mark, so a reader (or test) can tell "checked" from "not yet".
  if (typeof home.sandboxRoot !== 'string') return <span hidden data-xs-home-checked="true" />
  return (
    <p className="xs-error xs-home-warning" role="alert" data-xs-home-warning={home.sandboxRoot} data-xs-home-kind={home.kind ?? 'temp'}>
      {t(home.kind === 'workspace' ? 'home.workspaceWritable' : 'home.sandboxWritable', { home: home.home, root: home.sandboxRoot })}
    </p>
  )
}
