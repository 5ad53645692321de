/**
 * One line in the settings card when the home store is not as it should be
 * (src/home/channel.ts `store.status`, docs/architecture.md §8 "When the
 * store fails"): it cannot be used now (sends to other sessions are refused
 * until it can), or an unreadable store was moved aside and started anew (what
 * it held is lost; the old file is named). Nothing is shown while all is well,
 * or where the host serves no channel.
 * @module dsh-cross-session/client/store-line
 */
import { usePolled } from './channel.js'

/** props: `load()` (the `store.status` call), `active` (the card is open), the slot's `t`. */
export function StoreLine({ load, active, t }) {
  const { value } = usePolled(load, 'store', 5000, active)
  if (value === undefined) return null
  if (value.open === false) {
    return <p className="xs-error" role="status" data-xs-store="unavailable">{t('store.unavailable', { why: value.why ?? '' })}</p>
  }
  if (value.rebuilt !== undefined) {
    const words = t('store.rebuilt', { at: new Date(value.rebuilt.at).toLocaleString(), aside: value.rebuilt.aside })
    return <p className="xs-error" role="status" data-xs-store="rebuilt">{words}</p>
  }
  return null
}
