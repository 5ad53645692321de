/**
 * The words of every `cross-session` setting, in English and Chinese: its
 * label, its description, a unit, and an enum's options as the card shows
 * them. The only copy: the settings table (src/settings/table.ts) and,
 * through it, the schemastery `Config` and the docs take them from here.
 *
 * @module dsh-cross-session/settings/copy
 */

import type { Settings } from './keys.js'
import { MAX_MACHINE_NAME } from './machine-name.js'
import { MAX_STORE_CHARS } from './store-url.js'

/** One string in both languages the harness's own cards ship. */
export interface Bilingual {
  readonly en: string
  readonly zh: string
}

/** The words of one setting. */
export interface Copy {
  label: Bilingual
  description: Bilingual
  unit?: string
  options?: Record<string, Bilingual>
  /** A text's rule in words: what the card says when it refuses a value. */
  rule?: Bilingual
  /** What an empty text means, when it means something (the card's placeholder). */
  empty?: Bilingual
}

/** The words of every setting, by key. */
export const COPY: { readonly [K in keyof Settings]: Copy } = {
  enabled: {
    label: { en: 'Enabled', zh: '启用' },
    description: { en: 'Register the three session tools. Off registers none.', zh: '注册三个会话工具；关闭后一个也不注册。' },
  },
  defaultSendMode: {
    label: { en: 'Default send mode', zh: '默认发送模式' },
    description: { en: 'Mode of a sessions_send that gives none: queue waits for the next turn, steer joins the running one.',
      zh: '未指定模式的 sessions_send 使用此模式：queue 等下一轮，steer 插入正在运行的一轮。' },
    options: { queue: { en: 'Queue (next turn)', zh: '排队（下一轮）' }, steer: { en: 'Steer (running turn)', zh: '插入（当前轮）' } },
  },
  allowResume: {
    label: { en: 'Wake cold sessions', zh: '唤醒冷会话' },
    description: { en: 'Whether a send may resume a session that is not live. Off refuses with resume-disabled.',
      zh: '发送是否可以恢复未运行的会话；关闭时以 resume-disabled 拒绝。' },
  },
  frameMessages: {
    label: { en: 'Frame messages', zh: '消息加框' },
    description: { en: 'Wrap delivered messages in the cross-session frame (sender, hop, boundary token).',
      zh: '用跨会话框包裹送达的消息（发送者、跳数、边界令牌）。' },
  },
  includeInjectedByDefault: {
    label: { en: 'Show injected context', zh: '显示注入上下文' },
    description: { en: 'Default of sessions_read include_injected.', zh: 'sessions_read 的 include_injected 默认值。' },
  },
  maxListResults: {
    label: { en: 'List rows', zh: '列表行数上限' },
    description: { en: 'Most rows sessions_list returns.', zh: 'sessions_list 最多返回的行数。' },
  },
  maxReadMessages: {
    label: { en: 'Read messages', zh: '读取消息上限' },
    description: { en: 'Most messages sessions_read returns.', zh: 'sessions_read 最多返回的消息数。' },
  },
  maxMessageChars: {
    label: { en: 'Characters per read message', zh: '每条读取消息的字符上限' },
    description: { en: 'Longer messages are cut with a visible marker.', zh: '更长的消息会被截断并带有可见标记。' },
    unit: 'characters',
  },
  maxSendChars: {
    label: { en: 'Characters per send', zh: '每次发送的字符上限' },
    description: { en: 'Longer bodies are truncated and the result says so.', zh: '更长的正文会被截断，结果会说明。' },
    unit: 'characters',
  },
  visibility: {
    label: { en: 'Visibility', zh: '可见范围' },
    description: { en: 'all: every session; workspace: only sessions sharing the caller\'s working directory.',
      zh: 'all：所有会话；workspace：仅与调用者工作目录相同的会话。' },
    options: { all: { en: 'All sessions', zh: '所有会话' }, workspace: { en: 'Same workspace', zh: '相同工作区' } },
  },
  maxSendsPerMinute: {
    label: { en: 'Sends per minute', zh: '每分钟发送上限' },
    description: { en: 'Per sender→target pair; more is refused rate-limited.', zh: '每对发送者→目标；超出以 rate-limited 拒绝。' },
  },
  maxHops: {
    label: { en: 'Relay hops', zh: '转发跳数上限' },
    description: { en: 'Longest causal relay chain; a longer one is refused rate-limited.', zh: '因果转发链的最大长度；更长的以 rate-limited 拒绝。' },
  },
  recordWaitMs: {
    label: { en: 'Record wait', zh: '记录等待' },
    description: { en: 'How long a send waits for its message to reach the target\'s log.', zh: '发送等待消息写入目标日志的最长时间。' },
    unit: 'ms',
  },
  answerWaitMs: {
    label: { en: 'Answer wait', zh: '应答等待' },
    description: { en: 'How long a send from a headless run that woke its target waits for that turn to end, '
      + 'so the run does not cut it off by exiting.', zh: '无界面运行唤醒目标后，发送等待该轮结束的最长时间，以免运行退出时将其中断。' },
    unit: 'ms',
  },
  notifyByDefault: {
    label: { en: 'Notify by default', zh: '默认通知' },
    description: { en: 'Default of sessions_send notify: one notice to the sender when the target\'s turn that took the message ends.',
      zh: 'sessions_send 的 notify 默认值：目标处理该消息的一轮结束时，向发送者发一条通知。' },
  },
  noticeTtlMs: {
    label: { en: 'Notice expiry', zh: '通知有效期' },
    description: { en: 'A notice not sent or not delivered by then is dropped.', zh: '到期仍未发出或未送达的通知将被丢弃。' },
    unit: 'ms',
  },
  noticeWakesEndedRun: {
    label: { en: 'Notices wake ended runs', zh: '通知唤醒已结束的运行' },
    description: {
      en: 'When a headless run that asked for a notice has exited, let the notice resume its session in a long-lived host (dsh web). '
        + 'Off: the notice waits for that session\'s next turn.',
      zh: '请求了通知的无界面运行退出后，允许该通知在常驻主机（dsh web）中恢复其会话。关闭时：通知等待该会话的下一轮。',
    },
  },
  inbound: {
    label: { en: 'Messages from peers', zh: '来自其他会话的消息' },
    description: { en: 'accept: delivered at once; hold: kept until the target session\'s user delivers or refuses it in the web UI; '
      + 'refuse: the sender is told this session takes no peer messages. A session\'s own choice wins.',
    zh: 'accept：立即送达；hold：保留，直到目标会话的用户在网页界面中送达或拒绝；refuse：告知发送方此会话不接收其他会话的消息。会话自己的选择优先。' },
    options: {
      accept: { en: 'Accept', zh: '接受' },
      hold: { en: 'Hold for approval', zh: '保留待批准' },
      refuse: { en: 'Refuse', zh: '拒绝' },
    },
  },
  holdExpiryMs: {
    label: { en: 'Held message expiry', zh: '保留消息过期时间' },
    description: { en: 'How long a held message waits for its user\'s decision; then it is dropped.', zh: '保留的消息等待用户决定的最长时间，之后被丢弃。' },
    unit: 'ms',
  },
  store: {
    label: { en: 'Home store', zh: '主存储' },
    description: {
      en: 'Where the home store lives: sqlite (this DSH_HOME\'s SQLite file) or a postgres:// URL of a PostgreSQL server '
        + 'that several machines share. Keep its password in PGPASSWORD or ~/.pgpass, not here.',
      zh: '主存储的位置：sqlite（此 DSH_HOME 的 SQLite 文件），或多台机器共用的 PostgreSQL 服务器的 postgres:// URL。'
        + '密码请放在 PGPASSWORD 或 ~/.pgpass 中，不要写在这里。',
    },
    unit: 'characters',
    rule: { en: `Expected sqlite, or a postgres:// or postgresql:// URL on one line, at most ${MAX_STORE_CHARS} characters.`,
      zh: `应为 sqlite，或单行、不超过 ${MAX_STORE_CHARS} 个字符的 postgres:// 或 postgresql:// URL。` },
    empty: { en: 'sqlite', zh: 'sqlite' },
  },
  machine: {
    label: { en: 'Machine name', zh: '机器名称' },
    description: {
      en: 'The name other machines show beside this home\'s sessions when they share a PostgreSQL store. Empty: this host\'s name.',
      zh: '共用 PostgreSQL 存储时，其他机器在此主目录的会话旁显示的名称。留空：使用本机主机名。',
    },
    unit: 'characters',
    rule: { en: `Expected at most ${MAX_MACHINE_NAME} characters, without control characters.`, zh: `最多 ${MAX_MACHINE_NAME} 个字符，且不含控制字符。` },
    empty: { en: 'this host\'s name', zh: '本机主机名' },
  },
}
