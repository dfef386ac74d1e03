mpirun -np 1 build/splitstep allreduce --bytes 1M --test-spoil-rank 0 --fail-below-expected
