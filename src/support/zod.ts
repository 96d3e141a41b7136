// zod, for the config file's schemas and the store's checks of what it reads, and the only module that imports it.
//
// zod's 95 ES modules cost every process that loads the config or the store about 0.08 s of CPU to resolve and load
// one by one on node 20. `npm run build` bundles this module with them into one minified file
// (scripts/build-package-bundles.mjs). `npm test` runs that bundle too when dist/ is built from the checkout
// (scripts/build-tests.mjs); a test file run alone through tsx runs these sources.
export { z } from "zod";
