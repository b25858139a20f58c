/**
 * The host's interface addresses (Go: net.InterfaceAddrs), loopback excluded, from
 * os.networkInterfaces(). IPv6 link-local addresses are listed without their zone, as Go lists them.
 */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { HostAddress } from '../../domain/node/host-types.js';
import type { HostAddresses } from '../../ports/host.js';

export class OsHostAddresses implements HostAddresses {
  constructor(private readonly source: () => NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces) {}

  addresses(): HostAddress[] {
    const out: HostAddress[] = [];
    for (const [interfaceName, infos] of Object.entries(this.source())) {
      for (const info of infos ?? []) {
        if (info.internal) continue;
        out.push({ interfaceName, address: info.address.replace(/%.*$/, ''), family: info.family === 'IPv6' ? 6 : 4 });
      }
    }
    return out;
  }
}
