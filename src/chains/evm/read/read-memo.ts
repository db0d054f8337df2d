import type { EvmChain } from "../chain.js";

interface Remembered<T> {
  parts: readonly string[];
  answer: Promise<T>;
}

function sameParts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * Answers of reads shared while the state they read cannot have changed: calls asking the same thing at the same
 * state version share one node call, while it is in flight and after it answered, until the version moves on.
 * Failures are shared only by the calls already waiting for them, never kept. A read is named by a key and a list of
 * parts (a holder and its token contracts), compared part by part: no long key is built and hashed for every read.
 */
export class ReadMemo<T> {
  private version: string | undefined;
  private readonly answers = new Map<string, Array<Remembered<T>>>();
  private size = 0;

  /** `maxEntries` bounds the memory one state version may hold: past it, the memo starts over. */
  constructor(private readonly maxEntries = 1024) {}

  read(version: string, key: string, parts: readonly string[], compute: () => Promise<T>): Promise<T> {
    if (version !== this.version || this.size >= this.maxEntries) {
      this.answers.clear();
      this.size = 0;
      this.version = version;
    }
    let remembered = this.answers.get(key);
    if (remembered === undefined) {
      remembered = [];
      this.answers.set(key, remembered);
    } else {
      for (const entry of remembered) if (sameParts(entry.parts, parts)) return entry.answer;
    }
    const entry: Remembered<T> = { parts: [...parts], answer: compute() };
    remembered.push(entry);
    this.size++;
    const list = remembered;
    entry.answer.catch(() => {
      const index = list.indexOf(entry);
      if (index === -1) return;
      list.splice(index, 1);
      if (this.answers.get(key) === list) this.size--;
    });
    return entry.answer;
  }
}

/** One chain's reads that share answers: the chain must name its state (`stateVersion`), as simulated chains do. */
export class SharedChainReads<T> {
  private readonly memo = new ReadMemo<T>();

  private constructor(private readonly chain: EvmChain & Required<Pick<EvmChain, "stateVersion">>) {}

  /** Undefined for a chain that cannot name its state (a live node): its reads are never shared. */
  static of<T>(chain: EvmChain): SharedChainReads<T> | undefined {
    return chain.stateVersion === undefined
      ? undefined
      : new SharedChainReads<T>(chain as EvmChain & Required<Pick<EvmChain, "stateVersion">>);
  }

  async read(key: string, parts: readonly string[], compute: () => Promise<T>): Promise<T> {
    return this.memo.read(await this.chain.stateVersion(), key, parts, compute);
  }
}
