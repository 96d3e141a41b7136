// The token control in GraphiQL's header: a password field and "Use token" while none is set; "Token in use" and
// "Forget token" once one is. Plain form controls with labels, so keyboards and screen readers work as everywhere.
import { useId, useState } from "react";
import { parseToken } from "./api-token.js";

const row = { display: "flex", alignItems: "center", gap: "var(--px-8)", fontSize: "var(--font-size-body)" };
const field = {
  width: "14em",
  padding: "var(--px-4) var(--px-8)",
  border: "1px solid hsla(var(--color-neutral), var(--alpha-background-heavy))",
  borderRadius: "var(--border-radius-4)",
  background: "hsl(var(--color-base))",
  color: "hsl(var(--color-neutral))",
  font: "inherit",
};
const note = { color: "hsla(var(--color-neutral), var(--alpha-secondary))" };
const problem = { color: "hsl(var(--color-error))" };

/** Shows whether a token is in use and lets the operator set or forget it; `onChange` gets the token or null. */
export function TokenControl({ token, stored, onChange }) {
  const id = useId();
  const [draft, setDraft] = useState("");
  const [error, setError] = useState(null);
  if (token !== null) {
    return (
      <div style={row}>
        <span role="status" style={note}>
          Token in use{stored ? "" : " (this tab only: the browser would not store it)"}
        </span>
        <button type="button" className="graphiql-button" onClick={() => onChange(null)}>
          Forget token
        </button>
      </div>
    );
  }
  const submit = (event) => {
    event.preventDefault();
    const parsed = parseToken(draft);
    setError(parsed.error ?? null);
    if (parsed.token) {
      setDraft("");
      onChange(parsed.token);
    }
  };
  return (
    <form style={row} onSubmit={submit}>
      <label htmlFor={id} style={note}>
        API token
      </label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="none: anonymous"
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        aria-invalid={error !== null}
        aria-describedby={error ? `${id}-error` : undefined}
        style={field}
      />
      <button type="submit" className="graphiql-button">
        Use token
      </button>
      {error && (
        <span id={`${id}-error`} role="alert" style={problem}>
          {error}
        </span>
      )}
    </form>
  );
}
