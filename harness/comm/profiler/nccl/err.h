/*************************************************************************
 * Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
 *
 * See LICENSE.txt for license information
 ************************************************************************/

/* Vendored by splitstep, unchanged unless said here, from NVIDIA/nccl v2.28.9-1
 * (commit dbc86fd06e8b0c4517b95d8958a09ccacf9520c9), ext-profiler/example/nccl/err.h.
 * LICENSE.txt beside it is that release's.
 */

#ifndef NCCL_ERR_H_
#define NCCL_ERR_H_

/* Error type for plugins */
typedef enum { ncclSuccess                 =  0,
               ncclUnhandledCudaError      =  1,
               ncclSystemError             =  2,
               ncclInternalError           =  3,
               ncclInvalidArgument         =  4,
               ncclInvalidUsage            =  5,
               ncclRemoteError             =  6 } ncclResult_t;

#endif
