/**
 * The uploader's styles, rendered with the screen. Inline rather than an extracted CSS file: the
 * screen arrives as a federated module, and this way its styles arrive with it in one request
 * and cannot be missing. Uses the shell's design tokens, with fallbacks for the standalone page.
 */
export const UPLOADER_CSS = `
.uploader { max-width: 48rem; margin: 0 auto; padding: var(--space-3, 1rem); }
.uploader .visually-hidden { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.uploader .button { font: inherit; min-height: 44px; padding: 0.5rem 1rem; border-radius: 8px; border: 1px solid var(--color-brand, #2f5d34); background: #fff; color: var(--color-brand-dark, #1e3d22); cursor: pointer; }
.uploader .button--primary { background: var(--color-brand, #2f5d34); color: #fff; }
.uploader .button:disabled { opacity: 0.55; cursor: not-allowed; }
.uploader__controls { display: flex; flex-wrap: wrap; gap: 0.75rem 1.25rem; align-items: center; margin: 1rem 0; }
.uploader .field { display: inline-flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; position: relative; }
.uploader select { font: inherit; min-height: 44px; max-width: 100%; }
.uploader input[type=checkbox] { width: 24px; height: 24px; }
.uploader .tip { position: relative; display: inline-block; }
.uploader .tip__button { width: 32px; height: 32px; border-radius: 50%; border: 1px solid var(--color-muted, #4a5a4a); background: #fff; color: var(--color-text, #1f2a1f); font-weight: 700; cursor: help; }
.uploader .tip__text { position: absolute; z-index: 10; top: 110%; right: 0; width: min(18rem, 80vw); padding: 0.5rem 0.75rem; background: #1f2a1f; color: #fff; border-radius: 6px; font-size: 0.9rem; }
.uploader__errors p { color: #8a1c1c; font-weight: 600; margin: 0.25rem 0; }
.uploader__progress progress { width: 100%; height: 1.25rem; }
.uploader__notice p, .uploader__paused p { background: #fff7e0; border: 1px solid #e0c36a; padding: 0.5rem 0.75rem; border-radius: 6px; overflow-wrap: anywhere; }
.uploader__resume { background: #eef4ec; border: 1px solid var(--color-brand, #2f5d34); border-radius: 8px; padding: 0.75rem 1rem; margin: 1rem 0; }
.uploader__resume p { margin: 0 0 0.5rem; font-weight: 600; }
.uploader__allowance-problem { background: #fdecec; border: 1px solid #8a1c1c; border-radius: 8px; padding: 0.75rem 1rem; margin: 1rem 0; }
.uploader__allowance-problem p { margin: 0 0 0.5rem; color: #8a1c1c; font-weight: 600; }
.uploader__actions { display: flex; gap: 0.75rem; flex-wrap: wrap; margin: 0.5rem 0; }
.uploader .file-list { position: relative; overflow-y: auto; border: 1px solid var(--color-border, #d9d4c5); border-radius: 8px; background: #fff; }
.uploader .file-list__rows { position: relative; list-style: none; margin: 0; padding: 0; }
.uploader .file-row { position: absolute; left: 0; right: 0; display: flex; align-items: center; gap: 0.5rem; padding: 0 0.5rem; border-bottom: 1px solid #eee; }
.uploader .file-row__text { flex: 1; min-width: 0; display: flex; flex-direction: column; line-height: 1.3; }
.uploader .file-row__name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.uploader .file-row__status { font-size: 0.85rem; color: var(--color-muted, #4a5a4a); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.uploader .file-row--failed .file-row__status { color: #8a1c1c; }
.uploader .file-row__retry { font: inherit; min-height: 36px; padding: 0 0.6rem; border-radius: 6px; border: 1px solid #8a1c1c; background: #fff; color: #8a1c1c; }
.uploader .icon-button { width: 40px; height: 40px; display: inline-flex; align-items: center; justify-content: center; border: 0; border-radius: 6px; background: transparent; color: var(--color-text, #1f2a1f); cursor: pointer; }
.uploader .icon-button:hover { background: #f0ede4; }
.uploader .dialog-backdrop { position: fixed; inset: 0; background: rgb(0 0 0 / 0.45); display: flex; align-items: center; justify-content: center; z-index: 100; padding: 1rem; }
.uploader .dialog { background: #fff; border-radius: 10px; padding: 1.25rem; max-width: 30rem; width: 100%; }
.uploader .dialog__buttons { display: flex; gap: 0.75rem; justify-content: flex-end; }
.uploader__drop { border: 2px dashed var(--color-border, #b9b3a0); border-radius: 10px; padding: 0.75rem 1rem; margin: 1rem 0; background: #fbfaf6; }
.uploader__drop--over { border-color: var(--color-brand, #2f5d34); background: #eef4ec; }
.uploader__drop-text { margin: 0; color: var(--color-muted, #4a5a4a); }
.uploader__drop .uploader__controls { margin: 0.75rem 0 0; }
.uploader .field--check { flex-wrap: nowrap; align-items: flex-start; max-width: 100%; }
.uploader .field--check input { flex: none; margin: 0.1rem 0 0; }
.uploader .field--check label { flex: 1 1 auto; min-width: 0; }
.uploader__summary { font-weight: 600; margin: 0.25rem 0; overflow-wrap: anywhere; }
.uploader__speed { margin: 0.25rem 0; color: var(--color-muted, #4a5a4a); }
.uploader .file-row__thumb { flex: none; width: 48px; height: 36px; border-radius: 4px; background: #ece9df; overflow: hidden; }
.uploader .file-row__thumb img { display: block; width: 48px; height: 36px; object-fit: cover; }
`;
