import { RequestMethod } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';

/** How Nest passes a middleware bound with `forRoutes({ path: '{*path}', method: RequestMethod.ALL })`. */
const EVERY_PATH = '{*path}';

/**
 * Nest's express adapter with a middleware bound to every path and method as an unconditional `use`
 * layer. Nest would register it as an `all('/{*path}')` route, so that each request pays, per such
 * middleware, a pattern match, the decoding of every path segment into the wildcard parameter and a
 * route dispatch, for a match that cannot fail.
 */
export class ApiExpressAdapter extends ExpressAdapter {

  override createMiddlewareFactory(requestMethod: RequestMethod): (path: string, callback: Function) => unknown {
    const bindToRoute = super.createMiddlewareFactory(requestMethod);
    return (path, callback) => {
      const everyRequest = requestMethod === RequestMethod.ALL && path.replace(/^\/+/, '') === EVERY_PATH;
      return everyRequest ? this.getInstance().use(callback) : bindToRoute(path, callback);
    };
  }
}
