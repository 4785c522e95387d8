// Shared declarations of every shader: the work-group size as
// specialization constant 0 and the mapping of a flat work-group index onto
// a grid of at most 65535 groups per dimension (the smallest limit Vulkan
// guarantees), so a dispatch of n groups is (min(n, 32768), ceil(n/32768), 1)
// on the Go side (groupsFor in ops.go).

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const uint WG = 64;

// flatGroup is the work group's index in the flat order groupsFor uses.
uint flatGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
