/**
 * The `cross-session` settings card, registered in the keyed slot
 * `settings.plugin.item` under the namespace (rc.8 cookbook "adding a
 * settings card"; the tab renders it only while the host serves the
 * namespace). Every setting of SETTINGS_TABLE shows its label, description,
 * default and range; edits are staged and written on Save through the bound
 * settings scope. Decisions (validation, fencing, outcome) are
 * ./card-model.ts. docs/architecture.md §7, "Two halves".
 * @module dsh-cross-session/client/settings-card
 */
import { useState, useSyncExternalStore } from 'react'
import { SETTINGS_TABLE } from '../settings/table.ts'
import { currentValue, isOverridden, planSave, rangeText, unlanded } from './card-model.ts'

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

function valueText(value) {
  return typeof value === 'string' ? value : String(value)
}

function Field({ row, view, draft, error, lang, t, onEdit, disabled }) {
  const current = currentValue(row, view)
  const text = draft ?? valueText(current)
  const id = `xs-setting-${row.key}`
  const control = row.kind === 'integer'
    ? <input id={id} inputMode="numeric" value={text} disabled={disabled} aria-invalid={error !== undefined} onChange={event => onEdit(row.key, event.target.value)} />
    : (
        <select id={id} value={text} disabled={disabled} onChange={event => onEdit(row.key, event.target.value)}>
          {(row.kind === 'enum' ? row.values : ['true', 'false']).map(value => <option key={value} value={value}>{value}</option>)}
        </select>
      )
  return (
    <div className="xs-field" data-xs-field={row.key} data-xs-value={valueText(current)}>
      <label htmlFor={id}>{row.label[lang]}</label>
      <div>{control}{isOverridden(row, view) ? <span className="xs-hint">{` ${t('card.overridden')}`}</span> : null}</div>
      <span className="xs-hint">{row.description[lang]}</span>
      <span className="xs-hint xs-meta">{`${t('card.default')}: ${valueText(row.default)} · ${t('card.range')}: ${rangeText(row)}`}</span>
      {error !== undefined ? <span className="xs-error" role="alert" data-xs-error={row.key}>{error[lang]}</span> : null}
    </div>
  )
}

/** The card component (props: `controller`, `lang()`, and the slot's `t`). */
export function SettingsCard({ controller, lang, t }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const [, force] = useState(0)
  const language = lang()
  const view = state.view
  const disabled = view.status !== 'ready' || !view.writable || state.saving
  const dirty = state.drafts.size > 0
  const status = state.status
  return (
    <li className="xs-card" data-xs-card="cross-session" data-xs-status={view.status} data-xs-revision={view.revision ?? ''}>
      <h3>{t('card.title')}</h3>
      <p>{t('card.description')}</p>
      {view.status !== 'ready' ? <p>{view.status === 'loading' ? t('card.loading') : t('card.unavailable')}</p> : null}
      {SETTINGS_TABLE.map(row => (
        <Field key={row.key} row={row} view={view} draft={state.drafts.get(row.key)} error={state.errors[row.key]} lang={language} t={t} disabled={disabled}
          onEdit={(key, text) => { controller.edit(key, text); force(n => n + 1) }} />
      ))}
      <div className="xs-actions">
        <button type="button" data-xs-save="true" disabled={!dirty || disabled} onClick={() => { void controller.save() }}>{t('card.save')}</button>
        <button type="button" data-xs-discard="true" disabled={!dirty || state.saving} onClick={() => controller.discard()}>{t('card.discard')}</button>
        {status !== null
          ? <span className="xs-status" role="status" data-kind={status.kind}>{status.kind === 'failed' ? t('card.failed', { keys: status.keys.join(', ') }) : t(`card.${status.kind}`)}</span>
          : null}
      </div>
    </li>
  )
}
