// The part of @kubernetes/client-node that kintsugi uses, and the only module that imports it.
//
// The library's index loads every generated API and model (about 21 MB of JavaScript, kept by V8 as source text on
// the heap: some 26 MB of heap and 70 MB of resident memory in a bare node). `npm run build` bundles this module with
// the library's own files only (scripts/build-package-bundles.mjs): the APIs kintsugi does not call are dropped and the
// rest minified, so a server with Kubernetes configured loads about a fifth of that. The library's dependencies stay
// packages of their own. `npm test` runs that bundle too when dist/ is built from the checkout (scripts/build-tests.mjs);
// a test file run alone through tsx runs these sources, with the whole library.
export {
  ApiException,
  CoreV1Api,
  KubeConfig,
  Observable,
  PatchStrategy,
  ResponseContext,
  SelfDecodingBody,
  V1MicroTime,
  setHeaderOptions,
} from "@kubernetes/client-node";
export type { ConfigurationOptions, CoreV1Event, HttpLibrary, ObservableMiddleware, RequestContext, V1Eviction, V1Node } from "@kubernetes/client-node";
