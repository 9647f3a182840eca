// Providers that answer what a test scripts: real implementations of the ports (like the console
// adapters), standing in for a provider that fails in a chosen way.
import { acceptedResult, failedResult, type CommsErrorClass, type Mailer, type MailMessage, type PushMessage, type PushSender, type PushTokenResult, type SendResult } from "../index.js";

/** One scripted answer: a result, a failure class, or a throw. */
export type Scripted = "accept" | CommsErrorClass | "throw";

export function scriptedResult(step: Scripted, id: string): SendResult {
  if (step === "throw") throw new Error("provider exploded");
  return step === "accept" ? acceptedResult({ providerMessageId: id, consoleUrl: `https://console.example/${id}` }) : failedResult(`scripted-${step}`, step);
}

/** A mailer answering its script in order (the last step repeats); `calls` keeps every message. */
export class ScriptedMailer implements Mailer {
  readonly calls: MailMessage[] = [];
  constructor(
    readonly name: string,
    private readonly script: Scripted[],
  ) {}

  async sendMail(message: MailMessage): Promise<SendResult> {
    this.calls.push(message);
    const step = this.script[Math.min(this.calls.length - 1, this.script.length - 1)]!;
    return scriptedResult(step, `${this.name}-${this.calls.length}`);
  }
}

/** A push sender whose answer per token comes from `answer(token, call)`; `calls` keeps each call's tokens. */
export class ScriptedPushSender implements PushSender {
  readonly calls: string[][] = [];
  constructor(
    readonly name: string,
    private readonly answer: (token: string, call: number) => Scripted,
    private readonly kinds: readonly string[] = ["expo", "webpush"],
  ) {}

  supports(kind: string): boolean {
    return this.kinds.includes(kind);
  }

  async sendPush(message: PushMessage): Promise<PushTokenResult[]> {
    this.calls.push(message.targets.map((target) => target.token));
    const call = this.calls.length;
    return message.targets.map((target) => ({ token: target.token, ...scriptedResult(this.answer(target.token, call), `${this.name}-${target.token}-${call}`) }));
  }
}

