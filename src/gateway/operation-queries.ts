import type { SabakanAnswer } from "../adapters/sabakan-gateway-client.js";
import type { SabakanAsker } from "./sabakan-forwarder.js";

type Answers = Map<string, Promise<SabakanAnswer>>;

/**
 * One request's view of sabakan: within one execution, a query document sent again with the same variables gets
 * the answer (or the error) of the first send instead of a second fetch; `{ a: searchMachines {...} b:
 * searchMachines {...} }` costs sabakan one search, as aliases are dropped before forwarding. Mutations are always
 * sent. An execution is told apart by its root value, as in MachineByAddressLoader: a subscription's context lives
 * across its events, and an event never gets an earlier event's answer.
 */
export class OperationQueries {
  private readonly byRoot = new WeakMap<object, Answers>();
  private readonly withoutRoot: Answers = new Map();

  constructor(private readonly client: SabakanAsker) {}

  /** The asker for the execution whose root value is `root` (GraphQLResolveInfo.rootValue). */
  forExecution(root: unknown): SabakanAsker {
    return { execute: (document, variables) => this.execute(root, document, variables) };
  }

  private execute(root: unknown, document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> {
    if (!document.startsWith("query")) return this.client.execute(document, variables);
    const answers = this.answersOf(root);
    const key = `${document}\u0000${JSON.stringify(variables)}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = this.client.execute(document, variables);
      // Every asker of the same query shares a rejection; each awaits it, none is "unhandled" first.
      answer.catch(() => undefined);
      answers.set(key, answer);
    }
    return answer;
  }

  private answersOf(root: unknown): Answers {
    if (typeof root !== "object" || root === null) return this.withoutRoot;
    let answers = this.byRoot.get(root);
    if (!answers) {
      answers = new Map();
      this.byRoot.set(root, answers);
    }
    return answers;
  }
}
