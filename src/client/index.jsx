/**
 * Browser half of dsh-cross-session (package export `./client`, declared by
 * `dsh.client` in package.json): the `cross-session` settings card and the
 * three tool rows. Built by scripts/build-client.mjs into lib/client.js, the
 * web shell's module-loader bundle (docs/architecture.md §7, "Two halves").
 * @module dsh-cross-session/client
 */
import { SETTINGS_NAMESPACE } from '../settings/table.ts'
import { CardController, SettingsCard } from './settings-card.jsx'
import { ReceivedRow, RECEIVED_KIND, receivedDefinition } from './received.jsx'
import { injectStyles } from './styles.js'
import { TOOL_NAMES } from '../model/tool-names.ts'
import { titleKey, TOOL_ROWS } from './tool-rows.jsx'

/** Dictionary namespace owned by this plugin. */
const NS = 'crossSession'

/** Each tool row's title, from titles by {@link TOOL_NAMES} key. */
const rowTitles = titles => Object.fromEntries(Object.entries(titles).map(([key, title]) => [titleKey(TOOL_NAMES[key]), title]))

const en = {
  ...rowTitles({ list: 'Sessions', read: 'Read session', send: 'Send to session' }),
  'running': 'running',
  'live': 'live',
  'cold': 'cold',
  'yes': 'yes',
  'no': 'no',
  'col.id': 'id',
  'col.title': 'title',
  'col.state': 'state',
  'col.workspace': 'workspace',
  'col.messageable': 'messageable',
  'list.summary': '{count} sessions, {live} live',
  'list.self': 'this session',
  'list.owner': 'owner',
  'read.window': '{shown} of {readable} messages',
  'read.omitted': '{count} omitted',
  'send.recorded': 'recorded at seq {seq}',
  'send.inbox': 'in inbox at seq {seq}',
  'send.accepted': 'accepted, not yet recorded',
  'send.pending': 'pending, not yet in its log',
  'send.answered': 'answered at seq {seq}',
  'send.openAnswer': 'Open answer',
  'send.lost': 'lost: {why}',
  'send.hop': 'hop {hop}',
  'send.woke': 'woke it',
  'send.body': 'message',
  'received.from': 'Message from session',
  'received.open': 'Open session',
  'notice.from': 'Notice from session',
  'notice.completed': 'finished',
  'notice.failed': 'failed',
  'notice.interrupted': 'interrupted',
  'card.title': 'Cross-session tools',
  'card.description': 'sessions_list, sessions_read and sessions_send: how sessions see and message each other.',
  'card.default': 'default',
  'card.range': 'range',
  'card.overridden': '(set in settings.yaml)',
  'card.loading': 'Loading settings…',
  'card.unavailable': 'This host does not serve these settings.',
  'card.save': 'Save',
  'card.discard': 'Discard',
  'card.saved': 'Saved.',
  'card.invalid': 'Fix the marked fields; nothing was saved.',
  'card.conflict': 'The settings changed elsewhere since you started editing; nothing was saved. The current values are shown; save again to write your edits over them.',
  'card.failed': 'The host did not accept {keys}; the stored values are shown.',
}

const zh = {
  ...rowTitles({ list: '会话列表', read: '读取会话', send: '发送到会话' }),
  'running': '运行中',
  'live': '运行',
  'cold': '冷',
  'yes': '是',
  'no': '否',
  'col.id': 'id',
  'col.title': '标题',
  'col.state': '状态',
  'col.workspace': '工作区',
  'col.messageable': '可发送',
  'list.summary': '{count} 个会话，{live} 个运行中',
  'list.self': '当前会话',
  'list.owner': '所属',
  'read.window': '{readable} 条中的 {shown} 条',
  'read.omitted': '省略 {count} 条',
  'send.recorded': '已记录于 seq {seq}',
  'send.inbox': '已入收件箱 seq {seq}',
  'send.accepted': '已接受，尚未记录',
  'send.pending': '等待中，尚未写入其日志',
  'send.answered': '已于 seq {seq} 应答',
  'send.openAnswer': '打开应答',
  'send.lost': '已丢失：{why}',
  'send.hop': '第 {hop} 跳',
  'send.woke': '已唤醒',
  'send.body': '消息',
  'received.from': '来自会话的消息',
  'received.open': '打开会话',
  'notice.from': '来自会话的通知',
  'notice.completed': '已完成',
  'notice.failed': '失败',
  'notice.interrupted': '已中断',
  'card.title': '跨会话工具',
  'card.description': 'sessions_list、sessions_read 与 sessions_send：会话之间如何互相查看和发送消息。',
  'card.default': '默认',
  'card.range': '范围',
  'card.overridden': '（已在 settings.yaml 中设置）',
  'card.loading': '正在加载设置…',
  'card.unavailable': '此主机未提供这些设置。',
  'card.save': '保存',
  'card.discard': '放弃',
  'card.saved': '已保存。',
  'card.invalid': '请修正标记的字段；未保存任何内容。',
  'card.conflict': '开始编辑后设置已在别处更改；未保存任何内容。已显示当前值；再次保存将用你的修改覆盖它们。',
  'card.failed': '主机未接受 {keys}；已显示存储的值。',
}

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
    inject: () => ({ controller: card, lang }),
  }, SettingsCard))
  ctx.conversationEvents.register(receivedDefinition)
  ctx.slots.inject('conversation.chat.node', () => ctx.slots.register({
    name: 'conversation.chat.node',
    key: RECEIVED_KIND,
    locale: NS,
    inject: () => ({ openSession: id => { ctx.sessions.open(id) } }),
  }, ReceivedRow))
  // The send row follows its message in the target's history, as the host serves it (rc.8 dsh-client-connection
  // `connection.api.sessions.history`); read per call, so a host without it leaves the row as the call said.
  const history = async sessionId => {
    const connection = ctx.get?.('connection')
    const read = connection?.api?.sessions?.history
    return typeof read === 'function' ? await read.call(connection.api.sessions, { sessionId }) : undefined
  }
  const rowServices = () => ({ history, openSession: id => { ctx.sessions.open(id) } })
  ctx.slots.inject('tool.call.toolview', function* () {
    for (const [name, Row] of Object.entries(TOOL_ROWS)) yield ctx.slots.register({ name: 'tool.call.toolview', key: name, locale: NS, inject: rowServices }, Row)
  })
}
