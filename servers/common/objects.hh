// Bench::Echo's makeObjects for orbbench's C++ servers (omniORB, TAO,
// MICO: the standard C++ mapping), kind objects (docs/kinds/objects.md).
// The objects live in one child POA of the RootPOA, "objects", made at
// the first call, under the RootPOA's manager, with the policies the
// first call asks for:
//   one servant each:     USER_ID, RETAIN, USE_ACTIVE_OBJECT_MAP_ONLY
//                         (and the defaults: TRANSIENT, UNIQUE_ID,
//                         NO_IMPLICIT_ACTIVATION, ORB_CTRL_MODEL)
//   one default servant:  USER_ID, NON_RETAIN, USE_DEFAULT_SERVANT,
//                         MULTIPLE_ID (the rest as above)
// Object i's ObjectId is i as 8 decimal digits ("00000042"); each call
// makes the next `count` of them. Include it after the ORB's skeleton
// header for idl/echo.idl.
#ifndef ORBBENCH_OBJECTS_HH
#define ORBBENCH_OBJECTS_HH

#include <cstdio>
#include <ctime>
#include <mutex>

namespace orbbench {

// At most this many objects a call, and in all: ids have 8 digits.
const CORBA::ULong max_objects_per_call = 1UL << 20;
const CORBA::ULong max_objects = 99999999UL;

inline unsigned long long monotonic_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

// The objects of one server. make() is serialized: calls may come on
// several ORB threads.
class ObjectMaker {
  public:
    // Make `count` more objects, each with a servant from new_servant()
    // (the POA holds it) or, with shared, served by one such default
    // servant. `parent` is a servant of the RootPOA (its _default_POA).
    // Returns the ns spent making them and their references (not the
    // POA's creation); first and last: the references of the first and
    // the last one made; policies: the POA's, as words. BAD_PARAM for a
    // count of 0 or over the bounds, BAD_INV_ORDER for a `shared` other
    // than the first call's.
    template <class NewServant>
    CORBA::ULongLong make(PortableServer::ServantBase *parent,
                          CORBA::ULong count, CORBA::Boolean shared,
                          CORBA::Object_out first, CORBA::Object_out last,
                          CORBA::String_out policies, NewServant new_servant)
    {
        std::lock_guard<std::mutex> hold(lock_);
        if (count == 0 || count > max_objects_per_call ||
            count > max_objects - made_)
            throw CORBA::BAD_PARAM();
        if (CORBA::is_nil(poa_.in()))
            start(parent, shared, new_servant);
        else if (shared != shared_)
            throw CORBA::BAD_INV_ORDER();
        unsigned long long t0 = monotonic_ns();
        for (CORBA::ULong k = 0; k < count; k++) {
            char id[16];
            std::snprintf(id, sizeof id, "%08lu",
                          static_cast<unsigned long>(made_ + k));
            PortableServer::ObjectId_var oid =
                PortableServer::string_to_ObjectId(id);
            CORBA::Object_var ref;
            if (shared) {
                ref = poa_->create_reference_with_id(oid.in(),
                                                     "IDL:Bench/Echo:1.0");
            } else {
                PortableServer::ServantBase *s = new_servant();
                poa_->activate_object_with_id(oid.in(), s);
                s->_remove_ref();
                ref = poa_->id_to_reference(oid.in());
            }
            if (k == 0)
                first = CORBA::Object::_duplicate(ref.in());
            if (k + 1 == count)
                last = CORBA::Object::_duplicate(ref.in());
        }
        unsigned long long ns = monotonic_ns() - t0;
        made_ += count;
        policies = CORBA::string_dup(
            shared ? "USER_ID NON_RETAIN USE_DEFAULT_SERVANT MULTIPLE_ID"
                   : "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY");
        return ns;
    }

  private:
    template <class NewServant>
    void start(PortableServer::ServantBase *parent, CORBA::Boolean shared,
               NewServant new_servant)
    {
        PortableServer::POA_var root = parent->_default_POA();
        PortableServer::POAManager_var manager = root->the_POAManager();
        CORBA::PolicyList policies;
        policies.length(shared ? 4 : 3);
        policies[0] = root->create_id_assignment_policy(
            PortableServer::USER_ID);
        policies[1] = root->create_servant_retention_policy(
            shared ? PortableServer::NON_RETAIN : PortableServer::RETAIN);
        policies[2] = root->create_request_processing_policy(
            shared ? PortableServer::USE_DEFAULT_SERVANT
                   : PortableServer::USE_ACTIVE_OBJECT_MAP_ONLY);
        if (shared)
            policies[3] = root->create_id_uniqueness_policy(
                PortableServer::MULTIPLE_ID);
        poa_ = root->create_POA("objects", manager.in(), policies);
        for (CORBA::ULong i = 0; i < policies.length(); i++)
            policies[i]->destroy();
        if (shared) {
            PortableServer::ServantBase *s = new_servant();
            poa_->set_servant(s);
            s->_remove_ref();
        }
        shared_ = shared;
    }

    std::mutex lock_;
    PortableServer::POA_var poa_;
    CORBA::Boolean shared_ = false;
    CORBA::ULong made_ = 0;
};

// The server's one ObjectMaker, whichever of its objects is called.
inline ObjectMaker &objects()
{
    static ObjectMaker maker;
    return maker;
}

} // namespace orbbench

#endif
