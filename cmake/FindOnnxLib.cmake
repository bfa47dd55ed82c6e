# ONNX models for graph::load_onnx: Debian's libonnx-dev (the protobuf classes of
# onnx.proto, libonnx_proto) and libprotobuf-dev, optional: without them load_onnx raises a
# nabla::Error saying nabla was built without them. Debian ships only the ONNX_ML variant
# of the generated header (onnx/onnx-ml.pb.h), whose namespace is `onnx`.
set(NABLA_HAVE_ONNX 0)
set(NABLA_ONNX_PC_LIBS "")
set(NABLA_ONNX_LIBRARIES "")
set(NABLA_ONNX_INCLUDE_DIR "")
if(NABLA_WITH_ONNX)
  find_library(NABLA_ONNX_PROTO_LIBRARY onnx_proto)
  find_library(NABLA_PROTOBUF_LIBRARY protobuf)
  find_path(NABLA_ONNX_HEADER_DIR onnx/onnx-ml.pb.h)
  if(NABLA_ONNX_PROTO_LIBRARY AND NABLA_PROTOBUF_LIBRARY AND NABLA_ONNX_HEADER_DIR)
    set(NABLA_HAVE_ONNX 1)
    set(NABLA_ONNX_PC_LIBS " -lonnx_proto -lprotobuf")
    set(NABLA_ONNX_LIBRARIES ${NABLA_ONNX_PROTO_LIBRARY} ${NABLA_PROTOBUF_LIBRARY})
    set(NABLA_ONNX_INCLUDE_DIR ${NABLA_ONNX_HEADER_DIR})
    message(STATUS "ONNX: ${NABLA_ONNX_PROTO_LIBRARY} (graph::load_onnx)")
  else()
    message(STATUS "ONNX (libonnx-dev, libprotobuf-dev) not found: graph::load_onnx unavailable")
  endif()
endif()
