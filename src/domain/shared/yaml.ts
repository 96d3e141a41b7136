// yaml, for YAML text to values and back (the config file, cluster templates and cluster.yml, a kubeconfig's users),
// and the only module that imports it: pure functions over text, no I/O.
//
// yaml's CommonJS files (some 70) cost every process that loads the config about 0.04 s of CPU to resolve and load
// one by one on node 20. `npm run build` bundles this module with them into one minified file
// (scripts/build-package-bundles.mjs). `npm test` runs that bundle too when dist/ is built from the checkout
// (scripts/build-tests.mjs); a test file run alone through tsx runs these sources.
export { parse, parseDocument, stringify } from "yaml";
