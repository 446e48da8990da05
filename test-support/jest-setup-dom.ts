import '@testing-library/jest-dom';
import { TextDecoder, TextEncoder } from 'node:util';
import { deserialize, serialize } from 'node:v8';

// jsdom lacks these; react-router and Amplify need the encoders, fake-indexeddb structuredClone
// (Node's own clone of plain data is what the journal stores).
Object.assign(globalThis, { TextEncoder, TextDecoder });
if (typeof globalThis.structuredClone !== 'function') {
  Object.assign(globalThis, { structuredClone: <T>(value: T): T => deserialize(serialize(value)) as T });
}

// jsdom has <dialog> but none of its methods. The least the screens use: showModal() opens it and
// close() closes it with a `close` event. No top layer, inert page or focus moves: the browser
// tests cover those.
if (typeof HTMLDialogElement !== 'undefined' && typeof HTMLDialogElement.prototype.showModal !== 'function') {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    if (!this.open) return;
    this.open = false;
    this.dispatchEvent(new Event('close'));
  };
}
