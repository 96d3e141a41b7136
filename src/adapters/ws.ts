// ws, for the API's WebSocket server and kintsugi's own WebSocket clients (the CLI's `watch`, the chat alert bridge),
// and the only module that loads it (others import its types only).
//
// Imported from an ES module on node 20, ws's CommonJS files cost every process that loads the server about 0.06 s of
// CPU (each translated one by one); `npm run build` bundles this module with them into one minified file
// (scripts/build-package-bundles.mjs; its optional native helpers, bufferutil and utf-8-validate, stay packages ws
// tries to load and does without). `npm test` runs that bundle too when dist/ is built from the checkout
// (scripts/build-tests.mjs); a test file run alone through tsx runs these sources.
export { WebSocket, WebSocketServer } from "ws";
