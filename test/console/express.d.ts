// The few members of Express the mount test uses: Express is installed (it comes with the MCP SDK,
// a development dependency) without its type declarations.
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface ExpressResponse extends ServerResponse {
    send(body: string): void;
  }

  interface ExpressApp {
    (request: IncomingMessage, response: ServerResponse): void;
    get(path: string, handler: (request: IncomingMessage, response: ExpressResponse) => void): void;
    use(path: string, handler: (request: IncomingMessage, response: ServerResponse) => unknown): void;
  }

  export default function express(): ExpressApp;
}
