/**
 * Imported first by component tests that assert on colours: ink's colour support is decided
 * when chalk is loaded, and a test's stdout is not a terminal, so colours are forced before.
 */
process.env.FORCE_COLOR = '1';
