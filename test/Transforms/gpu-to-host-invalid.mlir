// RUN: pa-opt %s -split-input-file -pa-gpu-to-host -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @uses_threads(%out: memref<4xindex>) kernel {
      // expected-error @below {{cannot run on the host executor: a kernel must be a workgroup program}}
      %t = gpu.thread_id x
      memref.store %t, %out[%t] : memref<4xindex>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @dynamic_shared() kernel {
      // expected-error @below {{dynamic shared memory is not supported by the host executor}}
      %lds = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{holds kernels outside gpu.module @pa_kernels}}
  gpu.module @other_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @launch_other() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{launches a kernel outside gpu.module @pa_kernels}}
    gpu.launch_func @other_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    // expected-error @below {{is not supported by pa-gpu-to-host (only kernel gpu.func ops)}}
    gpu.func @device_helper() {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @launch_async() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.wait' op cannot run on the host executor}}
    %t0 = gpu.wait async
    // expected-error @below {{asynchronous launches are not supported by the host executor}}
    %t1 = gpu.launch_func async [%t0] @pa_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @launch_dynamic_shared(%bytes: i32) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{dynamic shared memory is not supported by the host executor}}
    gpu.launch_func @pa_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %bytes
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    // expected-error @below {{argument #0 of type 'memref<4xf32, #gpu.address_space<workgroup>>' is in a gpu address space}}
    gpu.func @k(%lds: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @host_gpu_op() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.alloc' op cannot run on the host executor}}
    %m = gpu.alloc () : memref<4xf32>
    return
  }
}
