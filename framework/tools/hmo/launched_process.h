#ifndef HMO_TOOLS_HMO_LAUNCHED_PROCESS_H_
#define HMO_TOOLS_HMO_LAUNCHED_PROCESS_H_

// Which process of a multi-process launch (`mpirun -n N hmo run ...`) this
// one is, from the launcher's environment (Open MPI's OMPI_COMM_WORLD_RANK,
// PMI's PMI_RANK); 0 when no launcher started it. The executing backend runs
// the device of this index and gathers every device's results to each
// process; only process 0 prints and writes them.

namespace hmo::cli {

int LaunchedProcessIndex();

}  // namespace hmo::cli

#endif  // HMO_TOOLS_HMO_LAUNCHED_PROCESS_H_
