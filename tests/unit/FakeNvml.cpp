// A stand-in for the driver's NVML, loaded by NvmlLibraryTest in its place: it counts the
// initialisations not yet shut down, can be told to fail its initialisation, and has none of
// NVML's device functions.
extern "C" {

int fake_nvml_users = 0;
int fake_nvml_init_result = 0;  // what nvmlInit_v2 returns: 0 is NVML_SUCCESS

int nvmlInit_v2() {
  if (fake_nvml_init_result == 0) ++fake_nvml_users;
  return fake_nvml_init_result;
}

int nvmlShutdown() {
  --fake_nvml_users;
  return 0;
}
}
