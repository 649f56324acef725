// Stops what global-setup started (the handle lives on globalThis of this same process).
export default async function globalTeardown() {
  await globalThis.__fleetflowTestStack?.stop();
}
