// The `ws` package (a dependency of engine.io, which socket.io uses) ships no types and
// @types/ws is not installed: only the client surface the inspector session uses is declared.
declare module "ws" {
  type Listener = (...args: never[]) => void;
  export default class WebSocket {
    static readonly OPEN: number;
    constructor(url: string, options?: { handshakeTimeout?: number; maxPayload?: number });
    readonly readyState: number;
    send(data: string): void;
    close(): void;
    terminate(): void;
    on(event: "open", listener: () => void): this;
    on(event: "message", listener: (data: Buffer | ArrayBuffer | Buffer[]) => void): this;
    on(event: "error", listener: (error: Error) => void): this;
    on(event: "close", listener: (code: number, reason: Buffer) => void): this;
    on(event: string, listener: Listener): this;
  }
}
