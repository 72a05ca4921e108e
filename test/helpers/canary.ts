import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';

/** A TCP listener on 127.0.0.1 that counts every connection made to it (SSRF canary). */
export interface Canary {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end(
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"keys":[]}',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A plain HTTP server on 127.0.0.1 with the given handler; counts requests. */
export async function startHttp(
  handler: RequestListener,
): Promise<{ origin: string; server: HttpServer; readonly requests: number; close(): Promise<void> }> {
  let requests = 0;
  const server = createHttpServer((req, res) => {
    requests += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
