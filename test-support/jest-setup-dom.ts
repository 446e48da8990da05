import '@testing-library/jest-dom';
import { TextDecoder, TextEncoder } from 'node:util';

// jsdom lacks these; react-router and Amplify need them.
Object.assign(globalThis, { TextEncoder, TextDecoder });
