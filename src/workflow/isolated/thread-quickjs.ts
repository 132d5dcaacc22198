/**
 * QuickJS for the isolated engine's thread: instantiated once per thread from the module the host
 * compiled (else from its own copy of the WebAssembly file). Never instantiates twice.
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from 'quickjs-emscripten';
import { type CompiledWasm, quickJsWasm } from '../../quickjs/wasm.js';

let loadedModule: Promise<QuickJSWASMModule> | undefined;

/** QuickJS, instantiated once per thread from the host's compiled module (else its own). */
export function quickJs(compiled: CompiledWasm | undefined): Promise<QuickJSWASMModule> {
  loadedModule ??= newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmModule: compiled ?? quickJsWasm() }),
  );
  return loadedModule;
}
