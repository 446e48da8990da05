/**
 * What a stage's panel (stage.ts `panel`) may take from the screen around it, beside
 * StagePanelProps: the screen's button and visually-hidden styles, so a panel looks like the rest,
 * and the list's thumbnail hook, for a preview. A stage folder imports the screen through here
 * only, so the screen can change without a stage knowing (docs/architecture.md#the-run-pipeline).
 */
export { useThumbnail } from '../../components/file-list';
export { default as panelStyles } from '../../components/uploader.module.css';
