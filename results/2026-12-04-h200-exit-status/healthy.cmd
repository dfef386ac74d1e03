mpirun -np 1 build/splitstep matmul --matmul-dtypes bf16 --fail-below-expected
