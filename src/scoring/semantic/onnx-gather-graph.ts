import { createRequire } from 'node:module';

/**
 * Encodes the smallest ONNX model transformers.js can run as a feature extractor: a Gather over an
 * embedding table followed by a sum over the sequence. Input `input_ids` [batch, seq] int64,
 * output `last_hidden_state` [batch, dims] float32, already pooled: the padding row is all zeros,
 * so padded positions add nothing and no attention mask is needed; the embedder L2-normalises.
 * Pooling in the graph matters: transformers.js' JavaScript mean pooling over [batch, seq, dims]
 * was the largest cost of embedding (profiled: ~40% of the time, plus the garbage it makes).
 */
export function encodeGatherModel(table: Float32Array, rows: number, dimensions: number, producer: string): Uint8Array {
  if (table.length !== rows * dimensions) {
    throw new Error(`embedding table holds ${table.length} floats, expected ${rows} rows x ${dimensions} dims`);
  }
  const { onnx } = loadOnnxProto();
  const dim = (value: number | string) => (typeof value === 'number' ? { dimValue: value } : { dimParam: value });
  const tensorType = (elemType: number, dims: Array<number | string>) => ({
    tensorType: { elemType, shape: { dim: dims.map(dim) } },
  });
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const INT64 = onnx.TensorProto.DataType.INT64;
  const INT = onnx.AttributeProto.AttributeType.INT;
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: producer,
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'static_embedding',
      node: [
        { opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['token_vectors'], attribute: [{ name: 'axis', i: 0, type: INT }] },
        { opType: 'ReduceSum', input: ['token_vectors', 'sequence_axis'], output: ['last_hidden_state'], attribute: [{ name: 'keepdims', i: 0, type: INT }] },
      ],
      initializer: [
        {
          name: 'embeddings',
          dims: [rows, dimensions],
          dataType: FLOAT,
          // raw_data is little-endian by the ONNX spec; every platform Node ships on is little-endian.
          rawData: new Uint8Array(table.buffer, table.byteOffset, table.byteLength),
        },
        { name: 'sequence_axis', dims: [1], dataType: INT64, int64Data: [1] },
      ],
      input: [{ name: 'input_ids', type: tensorType(INT64, ['batch_size', 'sequence_length']) }],
      output: [{ name: 'last_hidden_state', type: tensorType(FLOAT, ['batch_size', dimensions]) }],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** onnx-proto is CommonJS (protobufjs): load it through require so ESM interop stays simple. */
export function loadOnnxProto(): typeof import('onnx-proto') {
  const require = createRequire(import.meta.url);
  // The package's typings describe exactly this module object.
  return require('onnx-proto') as typeof import('onnx-proto');
}
