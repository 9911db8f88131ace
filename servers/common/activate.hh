// One servant in the RootPOA, for orbbench's C++ servers (the echo servers
// of omniORB and TAO, the event consumer): activated, its POA manager
// active, its reference returned (the caller owns it; the POA owns the
// servant). Include it after the ORB's own headers (CORBA, the POA).
#ifndef ORBBENCH_ACTIVATE_HH
#define ORBBENCH_ACTIVATE_HH

inline CORBA::Object_ptr activate_in_root_poa(CORBA::ORB_ptr orb,
                                              PortableServer::Servant servant)
{
    CORBA::Object_var obj = orb->resolve_initial_references("RootPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
    PortableServer::ObjectId_var oid = poa->activate_object(servant);
    servant->_remove_ref();
    PortableServer::POAManager_var pman = poa->the_POAManager();
    pman->activate();
    return poa->id_to_reference(oid);
}

#endif
