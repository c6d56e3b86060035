/*
 * The unit tests of sealed transport as one Jest test file, for mutation testing only
 * (stryker/sealed-transport.config.mjs; it is no *.spec.ts, so `npm test` runs each spec on its own).
 * Jest loads a test file's modules afresh, and @app/platform, @app/envelope and @app/testing take
 * seconds to load: a mutant of the cipher, which every spec reaches, would pay that once per spec.
 * Here it pays it once, and a mutant's run still starts only the specs whose tests reach it.
 */
import '../src/sealed-transport/seal-cipher.spec';
import '../src/sealed-transport/test-vector.spec';
import '../src/sealed-transport/sealed-transport.service.spec';
import '../src/sealed-transport/sealed-transport.guard.spec';
import '../src/sealed-transport/sealed-call.middleware.spec';
