import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkerMetricsSnapshot } from './metrics.js';

/** What `/worker` reports: enough for a load balancer, an orchestrator or a person to see the state. */
export interface WorkerInfo {
  workerId: string | null;
  agentName: string;
  url: string;
  connected: boolean;
  draining: boolean;
  status: 'available' | 'full';
  load: number;
  jobs: Array<{ id: string; room: string }>;
  metrics: WorkerMetricsSnapshot;
}

/**
 * The worker's HTTP health check: `GET /` answers 200 `OK` while the worker is connected (503 while
 * it is reconnecting or has stopped), `GET /worker` the `WorkerInfo` as JSON.
 */
export class HealthServer {
  private readonly server: Server;

  constructor(private readonly info: () => WorkerInfo) {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
      } else if (path === '/') {
        const ok = this.info().connected;
        res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'OK' : 'not connected');
      } else if (path === '/worker') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.info()));
      } else {
        res.writeHead(404).end();
      }
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
