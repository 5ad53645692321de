/**
 * The browser half's CSS, injected once when the bundle materializes (the
 * module system claims untagged <style> tags for the materializing plugin;
 * rc.8 dsh-client-modules lib/client.js `claimStyles`). Colours come from the
 * shell's design tokens (`--dsw-alias-*`), so light and dark themes both work.
 * @module dsh-cross-session/client/styles
 */
// The settings card copies rc.8 ui-settings-plugins' PluginCard and ValueField rules
// (lib/client.js, PluginCard.module.css and fields.module.css) under this plugin's own names.
const CARD_CSS = `
.xs-pcard{border:1px solid var(--dsw-alias-border-l2);background:var(--dsw-alias-bg-layer-3);border-radius:12px;list-style:none;
  transition:border-color .16s,background .16s}
.xs-pcard:hover{border-color:var(--dsw-alias-label-dimmed)}
.xs-pcard-open{background:var(--dsw-alias-bg-layer-2);border-color:var(--dsw-alias-label-dimmed)}
.xs-pcard-header{appearance:none;width:100%;font:inherit;color:inherit;text-align:left;cursor:pointer;background:0 0;border:0;
  border-radius:12px;align-items:center;gap:12px;padding:14px 16px;display:flex}
.xs-pcard-header:focus-visible{outline:2px solid var(--dsw-alias-brand-primary);outline-offset:-2px}
.xs-pcard-text{flex-direction:column;flex:1;gap:4px;min-width:0;display:flex}
.xs-pcard-name{color:var(--dsw-alias-label-primary);font-size:15px;font-weight:600;line-height:1.4}
.xs-pcard-description{color:var(--dsw-alias-label-tertiary);font-size:13px;line-height:1.5}
.xs-chevron{color:var(--dsw-alias-label-tertiary);flex:none;transition:transform .16s}
.xs-chevron-open{transform:rotate(180deg)}
.xs-pcard-body{border-top:1px solid var(--dsw-alias-border-l2);margin:0 16px;padding-bottom:8px}
.xs-badge-pill{white-space:nowrap;background:var(--dsw-alias-bg-module-platform);color:var(--dsw-alias-label-secondary);
  border-radius:999px;flex:none;padding:1px 8px;font-size:11px;font-weight:500;line-height:17px}
.xs-pcard-footer{border-top:1px solid var(--dsw-alias-border-l2);justify-content:flex-end;align-items:center;gap:8px;padding:12px 0 4px;
  display:flex}
.xs-pcard-footer .xs-status{flex:1;min-width:0;font-size:12px;line-height:1.5}
.xs-discard,.xs-save{appearance:none;font:inherit;cursor:pointer;border:1px solid #0000;border-radius:8px;padding:5px 14px;font-size:13px;
  line-height:1.5}
.xs-discard{border-color:var(--dsw-alias-border-l2);color:var(--dsw-alias-label-secondary);background:0 0}
.xs-save{background:var(--dsw-alias-label-primary);color:var(--dsw-alias-bg-layer-3)}
.xs-discard:disabled,.xs-save:disabled{opacity:.4;cursor:default}
.xs-field{flex-direction:column;gap:6px;padding:12px 0;display:flex}
.xs-field+.xs-field{border-top:1px solid var(--dsw-alias-border-l2)}
.xs-field-head{align-items:center;gap:8px;display:flex}
.xs-field-label{min-width:0;color:var(--dsw-alias-label-primary);flex:1;font-size:13px;font-weight:500;line-height:1.5}
.xs-input{border:1px solid var(--dsw-alias-border-l2);background:var(--dsw-alias-bg-layer-3);height:34px;font:inherit;
  color:var(--dsw-alias-label-primary);border-radius:8px;padding:0 12px;font-size:13px;line-height:1.5}
.xs-input:focus-visible{border-color:var(--dsw-alias-brand-primary);outline:none}
.xs-input[aria-invalid=true]{border-color:var(--dsw-alias-label-error,#cf222e)}
.xs-field .xs-hint,.xs-field .xs-error{margin:0;font-size:12px;line-height:1.5}
.xs-field .xs-meta{color:var(--dsw-alias-label-caption);font-family:var(--ds-font-family-code,monospace);font-size:11px}
.xs-switch{background:0 0;border:0;padding:4px;cursor:pointer;flex:none;display:inline-flex}
.xs-switch:disabled{cursor:not-allowed;opacity:.5}
.xs-switch:focus-visible{outline:1px solid var(--dsw-alias-state-business-primary);outline-offset:1px}
.xs-switch-track{background:var(--dsw-alias-border-l2);width:32px;height:18px;transition:background-color .12s;border-radius:9px;
  display:inline-block;position:relative}
.xs-switch-thumb{background:var(--dsw-alias-bg-layer-1,#fff);width:14px;height:14px;transition:transform .12s;border-radius:50%;
  position:absolute;top:2px;left:2px}
.xs-switch-track[data-on=true]{background:var(--dsw-alias-state-business-primary,#4d6bfe)}
.xs-switch-track[data-on=true] .xs-switch-thumb{transform:translate(14px)}
`

// The approval card, the inbound choice, the traffic view (its button and panel follow rc.8 ui-cordis's CordisPanel).
const INBOUND_CSS = `
.xs-dock{display:flex;flex-direction:column;gap:8px;width:100%;max-width:780px;box-sizing:border-box;margin:0 auto 8px}
.xs-approval{border:1px solid var(--dsw-alias-state-business-primary,#4d6bfe);background:var(--dsw-alias-bg-layer-2,transparent);
  border-radius:12px;padding:10px 12px;display:flex;flex-direction:column;gap:6px;font-size:14px}
.xs-approval .xs-title{color:var(--dsw-alias-state-business-primary,#4d6bfe);font-weight:500}
.xs-approval .xs-head{cursor:default}
.xs-message{display:flex;flex-direction:column;align-items:flex-start;gap:2px;min-width:0}
.xs-message pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;font-size:14px;line-height:22px;
  color:var(--dsw-alias-label-primary);max-height:240px;overflow:auto;width:100%}
.xs-more{background:0 0;border:0;padding:0;cursor:pointer;font:inherit;font-size:12px;
  color:var(--dsw-alias-label-link,var(--dsw-alias-label-secondary))}
.xs-primary{background:var(--dsw-alias-label-primary)!important;color:var(--dsw-alias-bg-layer-3)!important;
  border-color:transparent!important}
.xs-hint{color:var(--dsw-alias-label-tertiary);font-size:12px}
.xs-received-body{margin:2px 0 4px}
.xs-inbound{display:inline-flex;align-items:center;gap:6px;font-size:12px;color:var(--dsw-alias-label-tertiary)}
.xs-inbound select{font:inherit;font-size:12px;height:26px;border-radius:7px;border:1px solid var(--dsw-alias-border-l2);
  background:transparent;color:var(--dsw-alias-label-secondary);padding:0 6px}
.xs-footer{flex:none;align-items:center;width:100%;height:42px;margin:8px 0 0;display:flex;position:relative}
.xs-footer.xs-rail{width:36px;height:36px;margin:0}
.xs-badge{width:calc(100% + 4px);height:42px;color:var(--dsw-alias-label-primary);cursor:pointer;background:0 0;border:none;
  border-radius:12px;align-items:center;gap:8px;margin:0 -2px;padding:0 10px 0 8px;font-family:inherit;font-size:14px;display:inline-flex;
  overflow:hidden}
.xs-badge:hover,.xs-badge[data-active]{background:var(--dsw-alias-interactive-bg-hover)}
.xs-rail .xs-badge{border-radius:50%;justify-content:center;width:36px;height:36px;padding:0}
.xs-badge-label{text-overflow:ellipsis;white-space:nowrap;min-width:0;overflow:hidden}
.xs-badge-count{color:var(--dsw-alias-state-business-primary,#4d6bfe);flex:none;margin-left:auto;font-size:12px}
.xs-panel{z-index:30;border:1px solid var(--dsw-alias-border-inverted,#ccc);background:var(--dsw-specific-menu,#fff);width:560px;
  max-width:calc(100vw - 24px);max-height:70vh;box-shadow:var(--dsw-shadow-lv3);border-radius:12px;flex-direction:column;display:flex;
  position:fixed;left:16px;bottom:64px;overflow:hidden}
.xs-panel header{flex:none;justify-content:space-between;align-items:center;min-height:44px;padding:10px 12px;display:flex;font-size:14px;
  font-weight:500;color:var(--dsw-alias-label-primary)}
.xs-close{background:0 0;border:0;cursor:pointer;font-size:18px;color:var(--dsw-alias-label-tertiary)}
.xs-panel-body{flex:1;min-height:0;padding:0 12px 12px;overflow-y:auto}
.xs-traffic{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:6px}
.xs-traffic-row{border:1px solid var(--dsw-alias-border-l2);border-radius:10px;padding:8px 10px;display:flex;flex-direction:column;
  gap:4px;font-size:13px}
.xs-traffic-row[data-xs-state=held]{border-color:var(--dsw-alias-state-business-primary,#4d6bfe)}
.xs-traffic-head{display:flex;align-items:center;gap:6px;min-width:0}
.xs-traffic-time{color:var(--dsw-alias-label-caption);font-variant-numeric:tabular-nums;font-size:12px;flex:none}
.xs-who-line{display:flex;align-items:center;gap:6px;min-width:0}
.xs-who-role{flex:none;min-width:3.5em;color:var(--dsw-alias-label-caption);font-size:12px}
.xs-who{flex:0 1 auto;min-width:0;color:var(--dsw-alias-label-secondary);text-decoration:none;overflow:hidden;text-overflow:ellipsis;
  white-space:nowrap}
.xs-who:hover{text-decoration:underline}
.xs-who-where{flex:1 1 0;min-width:0;color:var(--dsw-alias-label-caption);font-size:12px;overflow:hidden;text-overflow:ellipsis;
  white-space:nowrap}
.xs-filters{display:flex;gap:6px;margin:0 0 8px}
.xs-filter{cursor:pointer;background:transparent}
.xs-filter[aria-pressed=true]{color:var(--dsw-alias-state-business-primary,#4d6bfe);border-color:currentColor}
.xs-filter:disabled{opacity:.5;cursor:default}
.xs-traffic-detail{flex:1 1 0;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.xs-arrow{color:var(--dsw-alias-label-caption)}
.xs-traffic-body{color:var(--dsw-alias-label-tertiary);font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.xs-state-held{color:var(--dsw-alias-state-business-primary,#4d6bfe);border-color:currentColor}
.xs-state-recorded,.xs-state-answered{color:var(--dsw-alias-state-success-primary,#1a7f37);border-color:currentColor}
.xs-state-refused,.xs-state-expired,.xs-state-withdrawn{color:var(--dsw-alias-state-error-primary,#cf222e);border-color:currentColor}
.xs-state-pending{color:var(--dsw-alias-state-warning-primary,#9a6700);border-color:currentColor}
`

const CSS = `
.xs-row{display:flex;flex-direction:column;font-size:14px;line-height:24px;min-width:0}
.xs-head{display:flex;flex-wrap:wrap;align-items:center;min-width:0;min-height:24px;cursor:pointer;column-gap:8px;row-gap:2px}
.xs-title{color:var(--dsw-alias-label-secondary);flex:none}
.xs-summary{color:var(--dsw-alias-label-tertiary);flex:1 1 120px;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.xs-chip{flex:0 1 auto;box-sizing:border-box;max-width:100%;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;
  font-size:12px;line-height:18px;padding:0 6px;border-radius:9px;border:1px solid var(--dsw-alias-border-l1,#ccc);
  color:var(--dsw-alias-label-secondary)}
.xs-chip a{font-size:12px}
.xs-copy{background:transparent;cursor:copy;font-family:var(--ds-font-family-code,monospace)}
.xs-copy:hover{border-color:var(--dsw-alias-label-secondary)}
.xs-peer-why{display:flex;flex-wrap:wrap;align-items:baseline;column-gap:8px;row-gap:2px;margin:4px 0;padding:6px 28px 6px 10px;
  border:1px solid var(--dsw-alias-state-warning-primary,#9a6700);border-radius:8px;font-size:13px;line-height:20px;
  color:var(--dsw-alias-label-secondary);position:relative}
.xs-peer-why .xs-close{position:absolute;top:2px;right:4px}
.xs-decided{display:flex;align-items:center;gap:8px;min-width:0;font-size:13px;line-height:20px;padding:4px 10px;
  border:1px dashed var(--dsw-alias-border-l1,#ccc);border-radius:10px;color:var(--dsw-alias-label-secondary)}
.xs-decided-text{flex:0 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}

.xs-ok{color:var(--dsw-alias-state-success-primary,#1a7f37);border-color:currentColor}
.xs-refused{color:var(--dsw-alias-state-error-primary,#cf222e);border-color:currentColor;font-weight:600}
.xs-pending{color:var(--dsw-alias-state-warning-primary,#9a6700);border-color:currentColor}
.xs-body{margin:4px 0 4px 12px;padding:8px 12px;border-radius:8px;background:var(--dsw-alias-markdown-code-block,rgba(127,127,127,.08));
  color:var(--dsw-alias-label-secondary);font-size:13px;line-height:20px;overflow:auto;max-height:320px}
.xs-body pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:inherit}
.xs-table{border-collapse:collapse;width:100%}
.xs-table th{text-align:left;font-weight:500;color:var(--dsw-alias-label-caption);padding:0 8px 2px 0}
.xs-table td{padding:1px 8px 1px 0;vertical-align:top;white-space:nowrap;max-width:280px;overflow:hidden;text-overflow:ellipsis}
.xs-mono{font-family:var(--ds-font-family-code,monospace)}
.xs-msg{border-top:1px solid var(--dsw-alias-border-l2,rgba(127,127,127,.2));padding-top:4px;margin-top:4px}
.xs-msg-head{color:var(--dsw-alias-label-caption);font-size:12px}
.xs-field .xs-meta{color:var(--dsw-alias-label-caption);font-family:var(--ds-font-family-code,monospace);font-size:11px}
.xs-actions{display:flex;gap:8px;align-items:center}
.xs-actions button{font:inherit;font-size:13px;padding:2px 12px;border-radius:6px;border:1px solid var(--dsw-alias-border-l1,#ccc);
  background:transparent;color:var(--dsw-alias-label-primary);cursor:pointer}
.xs-actions button:disabled{opacity:.5;cursor:default}
.xs-error{color:var(--dsw-alias-state-error-primary,#cf222e);font-size:12px}
.xs-home-warning{margin:0 16px 12px;line-height:1.5}
.xs-status{font-size:13px;color:var(--dsw-alias-label-secondary)}
.xs-status[data-kind=conflict],.xs-status[data-kind=failed],.xs-status[data-kind=invalid]{
  color:var(--dsw-alias-state-error-primary,#cf222e)}
.xs-status[data-kind=saved]{color:var(--dsw-alias-state-success-primary,#1a7f37)}
.xs-row a{color:var(--dsw-alias-label-link,var(--dsw-alias-label-secondary));font-size:13px;flex:none}
`

/** Add the stylesheet once per page. */
export function injectStyles() {
  if (typeof document === 'undefined' || document.querySelector('style[data-plugin-css="dsh-cross-session"]') !== null) return
  const tag = document.createElement('style')
  tag.dataset.plugin = 'dsh-cross-session'
  tag.dataset.pluginCss = 'dsh-cross-session'
  tag.textContent = CSS + CARD_CSS + INBOUND_CSS
  document.head.appendChild(tag)
}
