/**
 * The `cross-session` settings card, registered in the keyed slot
 * `settings.plugin.item` under the namespace (rc.8 cookbook "adding a
 * settings card"; the tab renders it only while the host serves the
 * namespace). It folds like the harness's own plugin cards beside it
 * (Terminal, Agent loop, Web search: rc.8 `@deepseek-ai/dsh-client-ui-settings-plugins`
 * lib/client.js `PluginCard`, whose look src/client/styles.js copies). Every
 * setting of SETTINGS_TABLE shows its label, description, default and range;
 * on/off settings are switches, option values are shown in the page's
 * language, texts are text fields (the `store` URL shown, and kept in the
 * page's DOM, only with its password masked); edits are staged and written on
 * Save through the bound settings scope. Decisions (validation, fencing, outcome) are
 * ./card-model.ts. docs/architecture.md §7, "Two halves".
 * @module dsh-cross-session/client/settings-card
 */
import { useState, useSyncExternalStore } from 'react'
import { SETTINGS_TABLE } from '../settings/table.ts'
import { defaultText, isOverridden, planSave, rangeText, shownValue, unlanded } from './card-model.ts'
import { HomeWarning } from './home-warning.jsx'
import { StoreLine } from './store-line.jsx'

/**
 * Card state over one bound scope: drafts, the revision they were typed
 * against, and the last save's status. A tiny store so the component reads it
 * with useSyncExternalStore.
 */
export class CardController {
  constructor(scope) {
    this.scope = scope
    this.drafts = new Map()
    this.editedAt = undefined
    this.status = null
    this.errors = {}
    this.saving = false
    this.listeners = new Set()
    this.state = this.build()
    this.unsubscribe = scope.subscribe(() => this.publish())
    this.subscribe = listener => { this.listeners.add(listener); return () => this.listeners.delete(listener) }
    this.getSnapshot = () => this.state
  }

  build() {
    return { view: this.scope.getSnapshot(), drafts: new Map(this.drafts), status: this.status, errors: this.errors, saving: this.saving }
  }

  publish() {
    this.state = this.build()
    for (const listener of this.listeners) listener()
  }

  edit(key, text) {
    if (this.drafts.size === 0) this.editedAt = this.scope.getSnapshot().revision
    this.drafts.set(key, text)
    const { [key]: _dropped, ...rest } = this.errors
    this.errors = rest
    this.status = null
    this.publish()
  }

  discard() {
    this.drafts.clear()
    this.errors = {}
    this.status = null
    this.publish()
  }

  async save() {
    if (this.saving) return
    const view = this.scope.getSnapshot()
    const plan = planSave(SETTINGS_TABLE, this.drafts, view, this.editedAt)
    if (plan.kind === 'nothing') {
      this.discard()
      return
    }
    if (plan.kind === 'invalid') {
      this.errors = plan.errors
      this.status = { kind: 'invalid' }
      this.publish()
      return
    }
    if (plan.kind === 'conflict') {
      // The document moved under the drafts: show the new values, keep the drafts, re-base them.
      this.editedAt = view.revision
      this.status = { kind: 'conflict' }
      this.publish()
      return
    }
    this.saving = true
    this.publish()
    for (const write of plan.writes) await this.scope.set(write.key, write.value)
    const missed = unlanded(plan.writes, this.scope.getSnapshot())
    this.saving = false
    if (missed.length === 0) {
      this.drafts.clear()
      this.status = { kind: 'saved' }
    } else {
      for (const key of plan.writes.map(w => w.key)) if (!missed.includes(key)) this.drafts.delete(key)
      this.editedAt = this.scope.getSnapshot().revision
      this.status = { kind: 'failed', keys: missed }
    }
    this.publish()
  }
}

/** An on/off setting: a switch (rc.8 ui-trajectory's toolbar switch: `role="switch"`, a track and a thumb). */
function Switch({ id, on, disabled, onToggle, label }) {
  return (
    <button type="button" id={id} className="xs-switch" role="switch" aria-checked={on} aria-label={label} disabled={disabled}
      onClick={() => onToggle(!on)}>
      <span className="xs-switch-track" data-on={on || undefined} aria-hidden="true"><span className="xs-switch-thumb" /></span>
    </button>
  )
}

/** The control of one field: a switch, a select of translated options, a text input, or a number input. */
function Control({ row, id, text, error, lang, disabled, onEdit }) {
  if (row.kind === 'boolean') {
    return <Switch id={id} on={text === 'true'} disabled={disabled} label={row.label[lang]} onToggle={on => onEdit(row.key, String(on))} />
  }
  if (row.kind === 'enum') {
    return (
      <select id={id} className="xs-input" value={text} disabled={disabled} onChange={event => onEdit(row.key, event.target.value)}>
        {row.values.map(value => <option key={value} value={value}>{row.options?.[value]?.[lang] ?? value}</option>)}
      </select>
    )
  }
  if (row.kind === 'text') {
    // No maxLength: a browser would cut a longer value silently, where the card refuses it with a reason.
    return (
      <input id={id} className="xs-input" type="text" spellCheck={false} autoComplete="off" value={text} placeholder={row.empty?.[lang]}
        disabled={disabled} aria-invalid={error !== undefined} onChange={event => onEdit(row.key, event.target.value)} />
    )
  }
  return (
    <input id={id} className="xs-input" inputMode="numeric" value={text} disabled={disabled} aria-invalid={error !== undefined}
      onChange={event => onEdit(row.key, event.target.value)} />
  )
}

/** One field, laid out as the harness's own plugin cards lay theirs (rc.8 ui-settings-plugins `ValueField`). */
function Field({ row, view, draft, error, lang, t, onEdit, disabled }) {
  // The value as shown: the store's password masked, never the stored text (docs/architecture.md §6, "Text").
  const shown = shownValue(row, view)
  const text = draft ?? shown
  const id = `xs-setting-${row.key}`
  const control = <Control row={row} id={id} text={text} error={error} lang={lang} disabled={disabled} onEdit={onEdit} />
  const said = (key, value) => `${t(key)}${t('card.colon')}${value}`
  const meta = row.kind === 'boolean'
    ? said('card.default', t(row.default ? 'card.on' : 'card.off'))
    : `${said('card.default', defaultText(row, lang))} · ${said('card.range', rangeText(row, lang))}`
  return (
    <div className="xs-field" data-xs-field={row.key} data-xs-value={shown} data-xs-kind={row.kind}>
      <div className="xs-field-head">
        <label className="xs-field-label" htmlFor={id}>{row.label[lang]}</label>
        {isOverridden(row, view) ? <span className="xs-badge-pill">{t('card.overridden')}</span> : null}
        {row.kind === 'boolean' ? control : null}
      </div>
      {row.kind === 'boolean' ? null : control}
      {error !== undefined
        ? <p className="xs-error" role="alert" data-xs-error={row.key}>{error[lang]}</p>
        : <p className="xs-hint">{row.description[lang]}</p>}
      <p className="xs-hint xs-meta">{meta}</p>
    </div>
  )
}

/** The chevron of a folding card (the harness draws it with its 14 px chevron-down icon). */
function Chevron({ open }) {
  return (
    <svg className={open ? 'xs-chevron xs-chevron-open' : 'xs-chevron'} width="14" height="14" viewBox="0 0 14 14" fill="none"
      aria-hidden="true">
      <path d="M3.5 5.25 7 8.75l3.5-3.5" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  )
}

/**
 * The card component (props: `controller`, `lang()`, the client `ctx`, the
 * slot's `t`, and `store()`: the home store's state, shown as one line when
 * it is not well).
 * Folded like the harness's own plugin cards (rc.8 ui-settings-plugins
 * `PluginCard`: a header button with name, description, an "unsaved" pill
 * and a chevron; the fields and a Discard / Save footer when open).
 */
export function SettingsCard({ controller, lang, ctx, t, store }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const [open, setOpen] = useState(false)
  const [, force] = useState(0)
  const language = lang()
  const view = state.view
  const disabled = view.status !== 'ready' || !view.writable || state.saving
  const dirty = state.drafts.size > 0
  const status = state.status
  const title = t('card.title')
  const statusText = status === null ? undefined
    : status.kind === 'failed' ? t('card.failed', { keys: status.keys.join(', ') }) : t(`card.${status.kind}`)
  return (
    <li className={open ? 'xs-pcard xs-pcard-open' : 'xs-pcard'} data-xs-card="cross-session" data-xs-status={view.status}
      data-xs-revision={view.revision ?? ''} data-xs-open={open}>
      <button type="button" className="xs-pcard-header" data-xs-card-toggle="true" aria-expanded={open}
        aria-label={`${t(open ? 'card.collapse' : 'card.expand')}: ${title}`} onClick={() => setOpen(!open)}>
        <span className="xs-pcard-text">
          <span className="xs-pcard-name">{title}</span>
          <span className="xs-pcard-description">{t('card.description')}</span>
        </span>
        {dirty ? <span className="xs-badge-pill">{t('card.unsaved')}</span> : null}
        <Chevron open={open} />
      </button>
      <HomeWarning ctx={ctx} t={t} />
      {open
        ? (
            <div className="xs-pcard-body">
              {view.status !== 'ready'
                ? <p className="xs-hint">{view.status === 'loading' ? t('card.loading') : t('card.unavailable')}</p>
                : null}
              {store !== undefined ? <StoreLine load={store} active={open} t={t} /> : null}
              {SETTINGS_TABLE.map(row => (
                <Field key={row.key} row={row} view={view} draft={state.drafts.get(row.key)} error={state.errors[row.key]}
                  lang={language} t={t} disabled={disabled}
                  onEdit={(key, text) => { controller.edit(key, text); force(n => n + 1) }} />
              ))}
              <div className="xs-pcard-footer">
                {status !== null
                  ? <span className="xs-status" role="status" data-kind={status.kind}>{statusText}</span>
                  : null}
                <button type="button" className="xs-discard" data-xs-discard="true" disabled={!dirty || state.saving}
                  onClick={() => controller.discard()}>
                  {t('card.discard')}
                </button>
                <button type="button" className="xs-save" data-xs-save="true" disabled={!dirty || disabled}
                  onClick={() => { void controller.save() }}>
                  {t(state.saving ? 'card.saving' : 'card.save')}
                </button>
              </div>
            </div>
          )
        : null}
    </li>
  )
}
