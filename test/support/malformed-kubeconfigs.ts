// Kubeconfigs that cannot be used, each holding a token and a client key that no message about it may show.

/** A token and a client key that must never leave the file, in any message about it. */
export const SECRET = "SECRET-abc123";
export const SECRET_KEY_DATA = Buffer.from(`-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`).toString("base64");

const cluster = `clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:6443", certificate-authority-data: ${SECRET_KEY_DATA} }\n`;
export const USER = `users:\n- name: u\n  user: { token: ${SECRET}, client-key-data: ${SECRET_KEY_DATA} }\n`;
export const CONTEXT = `contexts:\n- name: x\n  context: { cluster: c, user: u }\n`;

/** Malformed kubeconfigs, each with the secret near what is wrong, and what the error must say instead. */
export const MALFORMED_KUBECONFIGS: ReadonlyArray<{ name: string; text: string; says: RegExp }> = [
  { name: "bad indentation", text: `${USER}   bad: [\n`, says: /is not valid YAML at line 4, column 4 \(bad indentation of a mapping entry\)$/ },
  {
    name: "a tab in the indentation",
    text: `users:\n\t- token: ${SECRET}\n`,
    says: /is not valid YAML at line 2, column 1 \(tab characters must not be used in indentation\)$/,
  },
  {
    name: "an unclosed quote",
    text: `users:\n- name: u\n  user: { token: "${SECRET}\n`,
    says: /is not valid YAML at line 4, column 1 \(unexpected end of the stream within a double quoted scalar\)$/,
  },
  { name: "a duplicated key", text: `${USER}${USER}`, says: /is not valid YAML at line 4, column 1 \(duplicated mapping key\)$/ },
  {
    name: "broken JSON",
    text: `{"users": [{"name": "u", "user": {"token": "${SECRET}"}}], "clusters": [ }`,
    says: /is not valid YAML at line 1, column 78 \(missed comma between flow collection entries\)$/,
  },
  {
    name: "the secret as an alias",
    text: `users:\n- name: u\n  user: *${SECRET}\n`,
    says: /is not valid YAML at line 3, column 23 \(unidentified alias "…"\)$/,
  },
  { name: "the secret behind a tag", text: `users: !<${SECRET}> x\n`, says: /is not valid YAML at line 1, column 26 \(unknown tag !<…>\)$/ },
  { name: "a malformed tag name", text: `users: !a!${SECRET} x\n`, says: /is not valid YAML at line 1, column \d+ \(undeclared tag handle "…"\)$/ },
  { name: "a user without a name", text: `${cluster}users:\n- user: { token: ${SECRET} }\n`, says: /is malformed: users\[0\]\.name is missing$/ },
  {
    name: "a cluster without a server",
    text: `clusters:\n- name: c\n  cluster: { certificate-authority-data: ${SECRET_KEY_DATA} }\n${USER}`,
    says: /is malformed: clusters\[0\]\.cluster\.server is missing$/,
  },
  { name: "an empty file", text: "", says: /is malformed: it is empty, or its top level/ },
  { name: "a user that is null", text: `users: [null, "${SECRET}"]\n`, says: /is malformed: it is empty, or its top level/ },
  { name: "no current-context", text: `${cluster}${USER}${CONTEXT}`, says: /the kubeconfig has no current-context$/ },
  { name: "only the secret", text: `${SECRET}\n`, says: /the kubeconfig has no current-context$/ },
  {
    name: "a current-context that is not defined",
    text: `${cluster}${USER}${CONTEXT}current-context: ${SECRET}\n`,
    says: /current-context names a context it does not define$/,
  },
  {
    name: "a context naming a missing cluster",
    text: `${USER}contexts:\n- name: x\n  context: { cluster: ${SECRET}, user: u }\ncurrent-context: x\n`,
    says: /current context names a cluster it does not define$/,
  },
];
