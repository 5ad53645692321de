/**
 * Every text this package puts into another session, in one place
 * (docs/tools.md#the-frame, #notices, #inbound-messages): backends hand data
 * to these builders and post the text; nothing else writes injected text.
 *
 * - the frame around a peer's message (`framing/frame.ts`), built and parsed;
 * - the notice a sender gets when the turn that took its message ends
 *   (`framing/notice.ts`), built and read back for display;
 * - the notice of a held message refused or expired (`framing/held-notice.ts`);
 * - the owner notices steered into a session this package woke
 *   (`framing/owner-notices.ts`).
 *
 * Each text's peer-written part sits between markers carrying a random
 * token it does not contain (`framing/token.ts`).
 *
 * @module dsh-cross-session/framing
 */

export { FRAME_INTRO, FROM_LINE, buildFrame, frameTitle, parseFrame, unescapeTitle, type FrameMode } from './framing/frame.js'
export { NOTICE_EXCERPT_CHARS, NOTICE_INTRO, buildNotice, noticeExcerpt, parseNotice } from './framing/notice.js'
export { duration, heldNoticeText } from './framing/held-notice.js'
export { ownerNotices } from './framing/owner-notices.js'
