import { Worker } from "node:worker_threads";

import { nativeCryptoModule } from "../../crypto/public-keys.js";
import { signSend, type SendToSign, type SignedSend } from "./sign-transaction.js";

/**
 * A worker thread that signs a burst's sends beside the service's thread. A key-in-body send signs its transaction,
 * its fee ladder and its cancel (six signatures for a launch, most of the service's own work on it); in a burst from
 * one sender, the service's thread meanwhile records and broadcasts the sends before it. Started by the first burst
 * (nothing in a process that never has one), it signs with the same code (`signSend`), so what it answers is what the
 * service's thread would have signed; while it starts, or if it ever fails, sends are signed on the service's thread.
 * Keys reach it in the message of the one send they sign, and nothing of them stays there.
 */
class SigningThread {
  private worker: Worker | undefined;
  private ready = false;
  /** Set once the thread failed: every send is signed on the service's thread from then on. */
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, { send: SendToSign; resolve(signed: SignedSend): void; reject(error: unknown): void }>();

  get state(): SigningThreadState {
    if (this.broken) return "failed";
    if (this.ready) return "ready";
    return this.worker === undefined ? "not started" : "starting";
  }

  /** How many sends the thread signed. */
  signed = 0;

  /** The send signed on the thread; undefined while it starts (or after it failed): sign it here then. */
  sign(send: SendToSign): Promise<SignedSend> | undefined {
    if (this.broken) return undefined;
    if (!this.ready) {
      this.start();
      return undefined;
    }
    const worker = this.worker!;
    const id = this.nextId++;
    // Held open only while it has work: an idle thread never keeps the process alive.
    if (this.waiting.size === 0) worker.ref();
    return new Promise<SignedSend>((resolve, reject) => {
      this.waiting.set(id, { send, resolve, reject });
      worker.postMessage({ id, send });
    });
  }

  private start(): void {
    if (this.worker !== undefined) return;
    // Run from this repository's TypeScript (tests, the bench), the thread loads it as the process does; built, plain JS.
    const fromSource = import.meta.url.endsWith(".ts");
    let worker: Worker;
    try {
      worker = new Worker(new URL(`./signing-thread-worker${fromSource ? ".ts" : ".js"}`, import.meta.url), {
        ...(fromSource ? { execArgv: ["--import", "tsx/esm"] } : {}),
        workerData: { nativeCrypto: nativeCryptoModule() },
      });
    } catch {
      this.broken = true;
      return;
    }
    worker.unref();
    this.worker = worker;
    worker.on("message", (message: { ready?: true; id?: number; signed?: SignedSend; error?: string }) => {
      if (message.ready) return void (this.ready = true);
      const entry = this.waiting.get(message.id!);
      if (entry === undefined) return;
      this.waiting.delete(message.id!);
      if (this.waiting.size === 0) worker.unref();
      // A send the thread could not sign is signed here: its error is then the one signing throws, typed as usual.
      if (message.signed !== undefined) {
        this.signed++;
        entry.resolve(message.signed);
      } else settleHere(entry);
    });
    const fail = () => {
      this.broken = true;
      this.ready = false;
      this.worker = undefined;
      for (const entry of this.waiting.values()) settleHere(entry);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", fail);
  }
}

function settleHere(entry: { send: SendToSign; resolve(signed: SignedSend): void; reject(error: unknown): void }): void {
  try {
    entry.resolve(signSend(entry.send));
  } catch (error) {
    entry.reject(error);
  }
}

export type SigningThreadState = "not started" | "starting" | "ready" | "failed";

const thread = new SigningThread();

/** Where the signing thread is, and how many sends it signed (`/metrics`-style counters, and tests). */
export function signingThreadStatus(): { state: SigningThreadState; signed: number } {
  return { state: thread.state, signed: thread.signed };
}

/** Signs a send on the signing thread when it is up, else here: the same transactions either way. */
export function signOffThread(send: SendToSign): Promise<SignedSend> {
  return thread.sign(send) ?? Promise.resolve().then(() => signSend(send));
}
