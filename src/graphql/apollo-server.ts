// What kintsugi uses of Apollo Server and of @graphql-tools/schema, and the only module that imports them.
//
// Apollo Server's modules and those it loads (@graphql-tools/utils alone is 130 ES modules) cost every `kintsugi
// serve` about 0.17 s of CPU to resolve and load one by one on node 20, more than the code they run at start. `npm run
// build` bundles this module with them into one minified file (scripts/build-package-bundles.mjs; graphql stays a
// package of its own, the one instance graphql-ws and the schema share). `npm test` runs that bundle too when dist/ is
// built from the checkout (scripts/build-tests.mjs); a test file run alone through tsx runs these sources.
export { ApolloServer, HeaderMap } from "@apollo/server";
export type { ApolloServerPlugin, HTTPGraphQLRequest } from "@apollo/server";
export { unwrapResolverError } from "@apollo/server/errors";
export { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
export { makeExecutableSchema } from "@graphql-tools/schema";
