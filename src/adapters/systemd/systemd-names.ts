/** systemd's manager on the bus: its well-known name, object and interface (logind-bus.ts and systemd-bus.ts call it). */
export const SYSTEMD = 'org.freedesktop.systemd1';
export const SYSTEMD_PATH = '/org/freedesktop/systemd1';
export const SYSTEMD_MANAGER = 'org.freedesktop.systemd1.Manager';
