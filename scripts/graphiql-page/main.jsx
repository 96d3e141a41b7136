// The page's code. HTTP goes to this origin's /graphql, subscriptions to ws(s)://this host/graphql (graphql-ws), so
// the page works behind any host, port or TLS terminator. The workers are the files built next to this bundle.
// With a token set (TokenControl), both carry it; without one, requests go out exactly as anonymous ones.
import { useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { GraphiQL } from "graphiql";
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import { createClient } from "graphql-ws";
import { connectionParams, fetchWithToken, readToken, storeToken } from "./api-token.js";
import { TokenControl } from "./token-control.jsx";
// kintsugi's first query instead of GraphiQL's generic welcome (a test runs it against a real server).
import EXAMPLE_QUERY from "./example-query.graphql";

globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const name = label === "json" ? "json" : label === "graphql" ? "graphql" : "editor";
    return new Worker(new URL("./" + name + ".worker.js", import.meta.url), { name: label });
  },
};

const wsUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql";

/** A fetcher that sends `token` (or none), with its own WebSocket client: a new token means a new connection. */
function tokenFetcher(token) {
  const wsClient = createClient({ url: wsUrl, lazy: true, retryAttempts: 3, connectionParams: connectionParams(token) });
  const fetcher = createGraphiQLFetcher({ url: location.origin + "/graphql", fetch: fetchWithToken(token), wsClient });
  return { fetcher, dispose: () => wsClient.dispose() };
}

function KintsugiGraphiQL({ initialQuery, initialVariables }) {
  const [token, setToken] = useState(readToken);
  const [stored, setStored] = useState(true);
  // A new fetcher also makes GraphiQL fetch the schema again, now with the new token's rights.
  const current = useMemo(() => tokenFetcher(token), [token]);
  useEffect(() => current.dispose, [current]);
  const changeToken = (next) => {
    setStored(storeToken(next));
    setToken(next);
  };
  return (
    <GraphiQL fetcher={current.fetcher} defaultQuery={EXAMPLE_QUERY} initialQuery={initialQuery} initialVariables={initialVariables}>
      <GraphiQL.Logo>
        <TokenControl token={token} stored={stored} onChange={changeToken} />
      </GraphiQL.Logo>
    </GraphiQL>
  );
}

// ?query=...&variables=... open that operation (links to the IDE can carry one), as GraphiQL's own examples do.
const params = new URLSearchParams(location.search);
createRoot(document.getElementById("graphiql")).render(
  <KintsugiGraphiQL initialQuery={params.get("query") ?? undefined} initialVariables={params.get("variables") ?? undefined} />,
);
