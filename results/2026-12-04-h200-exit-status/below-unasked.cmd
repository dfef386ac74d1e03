mpirun -np 1 build/splitstep matmul --matmul-sizes 256 --matmul-dtypes bf16
