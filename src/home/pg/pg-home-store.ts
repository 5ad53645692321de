/**
 * The store port (`home/store.ts` {@link HomeStore}) on PostgreSQL
 * (docs/architecture.md §8 "Several machines"): every method is the
 * PostgreSQL store's transition of the same name (`home/pg/pg-store.ts`),
 * run on its worker thread (`home/pg/pg-sync.ts`). The synchronous methods
 * block until the answer is there; the three `…OffLoop` ones await it.
 *
 * Two things stay on this machine:
 * - the corpus index's rows (`corpus()`): they describe this machine's log
 *   files, which only this machine's processes read, so they stay in the
 *   machine's own SQLite store (`home/store-corpus.ts`), given here;
 * - `changed()`: a shared counter the worker bumps for each other
 *   process's change it hears (`LISTEN`), read without a round trip.
 *
 * @module dsh-cross-session/home/pg/pg-home-store
 */

import type { HolderRefusal } from '../../ports.js'
import type { Approval, ApprovalDecision, DecideOutcome, HoldForApprovalOutcome, LocalDelivery, NewApproval,
  TrafficRow } from '../../ports.js'
import type { InboundMode } from '../../settings/resolve.js'
import type { WithdrawOutcome, WithdrawWhich } from '../../model/withdraw.js'
import type { CorpusRows } from '../../index/shared-rows.js'
import type { Board, HoldOutcome, HolderView, HomeStore, LetGo, LogPlace, NewMessage, NewWatch, PostOutcome, StoredMessage, StoredWatch,
  WatchDrop, WatchedTurnEnd } from '../store.js'
import type { MachineTag } from './lease.js'
import type { PgStore } from './pg-store.js'
import type { PgSync } from './pg-sync.js'

/** The transitions of other machines' sessions: the directory (`home/pg/pg-directory.ts`) and reads (`home/pg/pg-reads.ts`). */
export type MachinesMethod = 'publish' | 'published' | 'directory' | 'askRead' | 'takeReads' | 'answerRead' | 'readState'
  | 'abandonRead' | 'sweepReads'

/** The store's methods as a caller sees them once answered. */
type Answered<K extends keyof PgStore> = PgStore[K] extends (...args: never[]) => Promise<infer R> ? R : never

/** The port on the PostgreSQL store's worker thread. */
export class PgHomeStore implements HomeStore {
  readonly self: MachineTag
  private readonly sync: PgSync
  private readonly rows: () => CorpusRows

  /**
   * @param sync - the worker thread (prepared: its schema made, `home/pg/pg-schema.ts`).
   * @param rows - this machine's corpus rows (its SQLite store's).
   */
  constructor(sync: PgSync, self: MachineTag, rows: () => CorpusRows) {
    this.sync = sync
    this.self = self
    this.rows = rows
  }

  join(longLived: boolean): void { this.call('join', longLived) }
  leave(how: LetGo): void { this.call('leave', how) }
  acquire(sessionId: string): HoldOutcome { return this.call('acquire', sessionId) }
  markLive(sessionId: string): HoldOutcome { return this.call('markLive', sessionId) }
  release(sessionId: string, how: LetGo): void { this.call('release', sessionId, how) }
  view(sessionId: string): HolderView { return this.call('view', sessionId) }
  board(): Board { return this.call('board') }
  corpus(): CorpusRows { return this.rows() }
  longLivedHost(): MachineTag | undefined { return this.call('longLivedHost') }
  isLongLived(tag: { readonly pid: number, readonly start: number }): boolean | undefined { return this.call('isLongLived', tag) }
  post(message: NewMessage): PostOutcome { return this.call('post', message) }
  postClaimed(message: NewMessage, behind: 'wait' | 'jump'): Answered<'postClaimed'> { return this.call('postClaimed', message, behind) }
  async postOffLoop(message: NewMessage): Promise<PostOutcome> { return await this.sync.callAsync('post', [message]) }
  async claimOffLoop(sessionId: string): Promise<StoredMessage[]> { return await this.sync.callAsync('claim', [sessionId]) }
  async recordAllOffLoop(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }):
  Promise<void> {
    await this.sync.callAsync('recordAll', answered === undefined ? [places] : [places, answered])
  }

  unpost(messageId: string): void { this.call('unpost', messageId) }
  claim(sessionId: string): StoredMessage[] { return this.call('claim', sessionId) }
  record(messageId: string, seq: number, running: boolean): boolean { return this.call('record', messageId, seq, running) }
  recordAll(places: readonly LogPlace[], answered?: { readonly sessionId: string, readonly turnEndSeq: number }): void {
    this.call('recordAll', places, answered)
  }

  unclaimAll(): void { this.call('unclaimAll') }
  handBack(messageIds: readonly string[]): void { this.call('handBack', messageIds) }
  unclaim(messageId: string): void { this.call('unclaim', messageId) }
  refuse(messageId: string, reason: HolderRefusal): void { this.call('refuse', messageId, reason) }
  refuseWaiting(sessionId: string, reason: HolderRefusal): number { return this.call('refuseWaiting', sessionId, reason) }
  answered(sessionId: string, turnEndSeq: number): void { this.call('answered', sessionId, turnEndSeq) }
  takeUnanswered(sessionId: string): StoredMessage[] { return this.call('takeUnanswered', sessionId) }
  pendingFor(sessionId: string): StoredMessage[] { return this.call('pendingFor', sessionId) }
  waiting(): Set<string> { return this.call('waiting') }
  heldHere(): string[] { return this.call('heldHere') }
  message(messageId: string): StoredMessage | undefined { return this.call('message', messageId) }
  adoptable(): string[] { return this.call('adoptable') }
  sweep(now: number, retainMs: number): number { return this.call('sweep', now, retainMs) }
  watch(watch: NewWatch): StoredWatch { return this.call('watch', watch) }
  unwatch(messageId: string): void { this.call('unwatch', messageId) }
  watchOf(messageId: string): StoredWatch | undefined { return this.call('watchOf', messageId) }
  watchedTargets(): Set<string> { return this.call('watchedTargets') }
  watchesOf(target: string): StoredWatch[] { return this.call('watchesOf', target) }
  fireWatch(messageId: string, ended: WatchedTurnEnd): StoredWatch | undefined { return this.call('fireWatch', messageId, ended) }
  dropWatchesOf(sender: string, reason: WatchDrop): number { return this.call('dropWatchesOf', sender, reason) }
  inboundOf(sessionId: string): InboundMode | undefined { return this.call('inboundOf', sessionId) }
  setInbound(sessionId: string, mode: InboundMode | undefined): void { this.call('setInbound', sessionId, mode) }
  holdForApproval(approval: NewApproval): HoldForApprovalOutcome { return this.call('holdForApproval', approval) }
  approvals(now: number, target?: string): Approval[] { return this.call('approvals', now, target) }
  approval(messageId: string): Approval | undefined { return this.call('approval', messageId) }
  decide(messageId: string, decision: ApprovalDecision, now: number): DecideOutcome { return this.call('decide', messageId, decision, now) }
  expireApprovals(now: number): Approval[] { return this.call('expireApprovals', now) }
  journal(entry: LocalDelivery): void { this.call('journal', entry) }
  traffic(limit: number): TrafficRow[] { return this.call('traffic', limit) }
  withdraw(sender: string, which: WithdrawWhich): WithdrawOutcome { return this.call('withdraw', sender, which) }
  /** Run a transition of other machines' sessions without blocking. @returns its value. @throws as the store's calls. */
  async machines<K extends MachinesMethod>(method: K, ...args: Parameters<PgStore[K]>): Promise<Answered<K>> {
    return await this.sync.callAsync(method, args)
  }

  changed(): boolean { return this.sync.changed() }
  /** Run `listener` when another process changed the store (as `NOTIFY` says; for `home/store-watch.ts`). @returns its removal. */
  onChange(listener: () => void): () => void { return this.sync.listen(event => 'changed' in event && listener()) }
  bytes(): number { return this.call('bytes') }
  close(): void { this.sync.close() }

  /** The store's `method`, blocking until it answers. @throws what it threw (a store fault keeps its reason). */
  private call<K extends keyof PgStore>(method: K, ...args: Parameters<Extract<PgStore[K], (...args: never[]) => unknown>>): Answered<K> {
    return this.sync.call(method, args)
  }
}
