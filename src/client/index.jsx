/**
 * Browser half of dsh-cross-session (package export `./client`, declared by
 * `dsh.client` in package.json): the `cross-session` settings card, the
 * three tool rows, the received-message row, the approval cards of held
 * peer messages, the session's inbound choice, and the traffic view. Built by scripts/build-client.mjs into lib/client.js, the
 * web shell's module-loader bundle (docs/architecture.md §7, "Two halves").
 * @module dsh-cross-session/client
 */
import { SETTINGS_NAMESPACE } from '../settings/table.ts'
import { CardController, SettingsCard } from './settings-card.jsx'
import { callChannel } from './channel.js'
import { ReceivedRow, RECEIVED_KIND, receivedDefinition } from './received.jsx'
import { injectStyles } from './styles.js'
import { TOOL_ROWS } from './tool-rows.jsx'
import { en, zh } from './dictionary.js'
import { ApprovalDock, InboundAction } from './approvals.jsx'
import { TrafficAction } from './traffic.jsx'

/** Dictionary namespace owned by this plugin. */
const NS = 'crossSession'

/** Services the client fiber waits for (cordis inject). */
export const inject = ['slots', 'locale', 'settingsScope', 'conversationEvents', 'sessions']

/**
 * Register the dictionaries, the settings card and the three tool rows.
 * @param ctx - the client root context.
 */
export function apply(ctx) {
  injectStyles()
  ctx.effect(() => ctx.locale.register(NS, { zh, en }), 'cross-session: dictionaries')
  const lang = () => (String(ctx.locale.getSnapshot().active).startsWith('zh') ? 'zh' : 'en')
  const card = new CardController(ctx.settingsScope.bind({ namespace: SETTINGS_NAMESPACE }))
  ctx.effect(() => () => card.unsubscribe(), 'cross-session: card scope')
  ctx.slots.inject('settings.plugin.item', () => ctx.slots.register({
    name: 'settings.plugin.item',
    key: SETTINGS_NAMESPACE,
    locale: NS,
    inject: () => ({ controller: card, lang, ctx, store: () => callChannel(ctx, 'store.status') }),
  }, SettingsCard))
  ctx.conversationEvents.register(receivedDefinition)
  ctx.slots.inject('conversation.chat.node', () => ctx.slots.register({
    name: 'conversation.chat.node',
    key: RECEIVED_KIND,
    locale: NS,
    inject: () => ({ ctx }),
  }, ReceivedRow))
  // The send row follows its message in the target's history, as the host serves it (rc.8 dsh-client-connection
  // `connection.api.sessions.history`); read per call, so a host without it leaves the row as the call said.
  const history = async sessionId => {
    const connection = ctx.get?.('connection')
    const read = connection?.api?.sessions?.history
    return typeof read === 'function' ? await read.call(connection.api.sessions, { sessionId }) : undefined
  }
  // A held message: where it stands in the home store, asked by the id the tool gave it (src/home/channel-views.ts `sends.held`);
  // the sender is the session whose conversation shows the row.
  const held = async (callId, args) => {
    const sender = ctx.sessions.list?.getSnapshot?.().current
    return sender === undefined ? { held: null } : await callChannel(ctx, 'sends.held', { sender, callId, args })
  }
  const rowServices = () => ({ ctx, history, held })
  ctx.slots.inject('conversation.input.dock', () => ctx.slots.register({
    name: 'conversation.input.dock',
    id: 'cross-session-approvals',
    order: 5,
    locale: NS,
    inject: sessionId => ({ ctx, sessionId }),
  }, ApprovalDock))
  ctx.slots.inject('conversation.session.header.actions', () => ctx.slots.register({
    name: 'conversation.session.header.actions',
    id: 'cross-session-inbound',
    order: 30,
    locale: NS,
    inject: sessionId => ({ ctx, sessionId }),
  }, InboundAction))
  ctx.slots.inject('sidebar.footer.action', () => ctx.slots.register({
    name: 'sidebar.footer.action',
    id: 'cross-session-traffic',
    locale: NS,
    inject: () => ({ ctx }),
  }, TrafficAction))
  ctx.slots.inject('tool.call.toolview', function* () {
    for (const [name, Row] of Object.entries(TOOL_ROWS)) {
      yield ctx.slots.register({ name: 'tool.call.toolview', key: name, locale: NS, inject: rowServices }, Row)
    }
  })
}
