// exifr's package types describe its full build, whose API includes the mini build's: exif.ts
// imports the mini build's UMD file, which has no types of its own, and uses only these.
declare module 'exifr/dist/mini.umd.js' {
  export { parse, thumbnail } from 'exifr';
}
