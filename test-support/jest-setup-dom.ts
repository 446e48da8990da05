import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { TextDecoder, TextEncoder } from 'node:util';
import { deserialize, serialize } from 'node:v8';

// jsdom lacks these; react-router and Amplify need the encoders, fake-indexeddb structuredClone
// (Node's own clone of plain data is what the journal stores).
Object.assign(globalThis, { TextEncoder, TextDecoder });
if (typeof globalThis.structuredClone !== 'function') {
  Object.assign(globalThis, { structuredClone: <T>(value: T): T => deserialize(serialize(value)) as T });
}

// How long findBy* and waitFor wait for what a screen shows after real work — a render, a resolved
// promise, a lazy module — before they fail: a bound for "never appears", not a timing. Testing
// Library's default, 1 s of real time, is a timing: a screen still "Loading your profile…" after
// 1 s on a busy 2-core machine failed. Half the run's testTimeout (jest.config.cjs), so a screen
// that never shows it fails with Testing Library's message and the DOM rather than jest's timeout.
// Under fake timers (uploader-screen) it bounds the fake time waitFor advances, 50 ms a step.
configure({ asyncUtilTimeout: 30_000 });

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
