import { RequestMethod } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { SuccessRenderer, SuccessRenderingAdapter } from '@app/envelope';
import type { Response } from 'express';

/** How Nest passes a middleware bound with `forRoutes({ path: '{*path}', method: RequestMethod.ALL })`. */
const EVERY_PATH = '{*path}';

/**
 * Nest's express adapter with the two per-request costs of this platform taken out of the framework's
 * generic paths:
 * - a middleware bound to every path and method becomes an unconditional `use` layer. Nest would
 *   register it as an `all('/{*path}')` route, so that each request pays, per such middleware, a
 *   pattern match, the decoding of every path segment into the wildcard parameter and a route
 *   dispatch, for a match that cannot fail;
 * - the envelope (SuccessRenderingAdapter) renders each successful handler result on its way out.
 */
export class ApiExpressAdapter extends ExpressAdapter implements SuccessRenderingAdapter {
  private renderSuccess?: SuccessRenderer;

  renderSuccessWith(renderer: SuccessRenderer): void {
    this.renderSuccess = renderer;
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!this.renderSuccess) return super.reply(response, body, statusCode);
    const status = statusCode ?? response.statusCode;
    return super.reply(response, this.renderSuccess(response.req, response, status, body), statusCode);
  }

  override createMiddlewareFactory(requestMethod: RequestMethod): (path: string, callback: Function) => unknown {
    const bindToRoute = super.createMiddlewareFactory(requestMethod);
    return (path, callback) => {
      const everyRequest = requestMethod === RequestMethod.ALL && path.replace(/^\/+/, '') === EVERY_PATH;
      return everyRequest ? this.getInstance().use(callback) : bindToRoute(path, callback);
    };
  }
}
