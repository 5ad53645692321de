/**
 * The closed table from backend failure kinds to the only texts the model
 * sees about them. The compiler fails when a kind in
 * `src/core/failure-kinds.ts` has no row; a failure that fits no kind gets the
 * `unknown` row. The raw error (message, paths, stack) goes to the log only.
 *
 * Session-query texts follow the harness's own `dsh-tool-session-query`
 * 0.1.0-rc.8 `service-boundary.ts` `SAFE_SESSION_QUERY_FAILURES`.
 *
 * @module dsh-cross-session/presentation/failures
 */

import type { FailureKind } from '../core/failure-kinds.js'

const SAFE_FAILURES = {
  'session/not-found': 'session/not-found: no such session',
  'session/agent-busy': 'session/agent-busy: the session did not accept input',
  'session/model-unavailable': 'session/model-unavailable: the session\'s model is not served by this host',
  'session/steer-unavailable': 'session/steer-unavailable: the running turn does not accept steering',
  'session/queue-item-not-found': 'session/queue-item-not-found: the session\'s queue changed',
  'session/conflict': 'session/conflict: the session belongs to another workspace in this host',
  'session/workspace-attach-failed': 'session/workspace-attach-failed: the session\'s workspace could not be attached',
  'workspace/not-found': 'workspace/not-found: the session\'s workspace was not found',
  'agent-preset/not-found': 'agent-preset/not-found: the session\'s agent preset was not found',
  'agent-preset/invalid': 'agent-preset/invalid: the session\'s agent preset is not valid',
  'agent-preset/locked': 'agent-preset/locked: the session\'s agent preset is locked',
  'agent-preset/conflict': 'agent-preset/conflict: the session\'s agent preset conflicts with this host\'s',
  'gateway/cancelled': 'gateway/cancelled: the host cancelled the request',
  'gateway/bad-request': 'gateway/bad-request: the host rejected the request as malformed',
  'gateway/internal': 'gateway/internal: the host failed internally',
  'SESSION_QUERY_ABORTED': 'SESSION_QUERY_ABORTED: session query was cancelled',
  'SESSION_QUERY_CORRUPT_SESSION': 'SESSION_QUERY_CORRUPT_SESSION: session event history is corrupt',
  'SESSION_QUERY_EVENT_NOT_FOUND': 'SESSION_QUERY_EVENT_NOT_FOUND: session event was not found',
  'SESSION_QUERY_INDEX_FAILED': 'SESSION_QUERY_INDEX_FAILED: session search index is unavailable',
  'SESSION_QUERY_INVALID_CONFIG': 'SESSION_QUERY_INVALID_CONFIG: session query operation failed',
  'SESSION_QUERY_INVALID_CURSOR': 'SESSION_QUERY_INVALID_CURSOR: session search continuation is invalid',
  'SESSION_QUERY_INVALID_FILTER': 'SESSION_QUERY_INVALID_FILTER: session query filters were rejected',
  'SESSION_QUERY_INVALID_LIMIT': 'SESSION_QUERY_INVALID_LIMIT: session query result limit was rejected',
  'SESSION_QUERY_INVALID_QUERY': 'SESSION_QUERY_INVALID_QUERY: session query was rejected',
  'SESSION_QUERY_INVALID_LINEAGE': 'SESSION_QUERY_INVALID_LINEAGE: session lineage is invalid',
  'SESSION_QUERY_INVALID_SURFACE': 'SESSION_QUERY_INVALID_SURFACE: session event history is invalid',
  'SESSION_QUERY_INVALID_WINDOW': 'SESSION_QUERY_INVALID_WINDOW: session event window is invalid',
  'SESSION_QUERY_PERSISTENCE_FAILED': 'SESSION_QUERY_PERSISTENCE_FAILED: session history storage is unavailable',
  'SESSION_QUERY_SEARCH_DISABLED': 'SESSION_QUERY_SEARCH_DISABLED: session search is disabled in this deployment',
  'SESSION_QUERY_SESSION_NOT_FOUND': 'SESSION_QUERY_SESSION_NOT_FOUND: session was not found',
  'SESSION_QUERY_STALE_CURSOR': 'SESSION_QUERY_STALE_CURSOR: session history changed meanwhile',
  'SESSION_QUERY_SOURCE_CONFLICT': 'SESSION_QUERY_SOURCE_CONFLICT: session query operation failed',
  'EACCES': 'EACCES: permission denied in the session store',
  'EPERM': 'EPERM: operation not permitted in the session store',
  'ENOENT': 'ENOENT: a file of the session store is missing',
  'EEXIST': 'EEXIST: a file of the session store already exists',
  'ENOTDIR': 'ENOTDIR: the session store has a file where a directory belongs',
  'EISDIR': 'EISDIR: the session store has a directory where a file belongs',
  'ELOOP': 'ELOOP: the session store has a symbolic link loop',
  'ENAMETOOLONG': 'ENAMETOOLONG: a session store path is too long',
  'ENOSPC': 'ENOSPC: the disk is full',
  'EDQUOT': 'EDQUOT: the disk quota is used up',
  'EROFS': 'EROFS: the session store is on a read-only file system',
  'EIO': 'EIO: input/output error in the session store',
  'EMFILE': 'EMFILE: too many open files in this process',
  'ENFILE': 'ENFILE: too many open files on this system',
  'EBUSY': 'EBUSY: a file of the session store is busy',
  'EAGAIN': 'EAGAIN: the session store is temporarily unavailable',
  'machine/unreachable': 'machine/unreachable: no dsh process of the session\'s machine is running now '
    + '(sessions_list marks that machine not reachable); try again once one runs there',
  'machine/unanswered': 'machine/unanswered: no dsh process of the session\'s machine answered in time '
    + '(sessions_list says whether that machine is reachable; try again once it is)',
  'machine/read-failed': 'machine/read-failed: the session\'s machine could not read its log',
  'machine/too-large': 'machine/too-large: the session\'s surface is too large to bring from its machine',
  'machine/store-down': 'machine/store-down: the store shared with other machines cannot be reached now; '
    + 'sessions of this machine can still be read',
  'aborted': 'the backend call was aborted',
  'timeout': 'the backend did not answer in time',
  'unknown': 'an unexpected backend error (the details are in the host log)',
} as const satisfies Record<FailureKind, string>

/** The model-safe text of one failure kind (one line, no backend text). */
export function failureText(kind: FailureKind): string {
  return Object.hasOwn(SAFE_FAILURES, kind) ? SAFE_FAILURES[kind] : SAFE_FAILURES.unknown
}
